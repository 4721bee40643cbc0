// What the training loop measures: one record per step and per epoch, kept
// raw so warm-up is sliced off afterwards, not hidden. Scenarios, the rank
// protocol and the reports all read these.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace ftb {

// Per-epoch record (train metrics averaged over the epoch's steps).
struct EpochRecord {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0, train_acc = 0;
  double val_loss = 0, val_acc = 0;
  double time_s = 0;  // training time of the epoch (excludes validation)
};

// One training step as measured.
struct StepRecord {
  int64_t step = 0, epoch = 0;
  double step_ms = 0;     // wall time of the step, device-synchronised
  double loss = 0;
  double wait_ms = 0;     // time the step waited on the data loader
  int64_t samples = 0, tokens = 0;  // tokens = non-pad tokens of the batch
  // The padded length T the device computed on; with accumulate=K under
  // padding=longest (each micro-batch cut to its own longest row) the rows'
  // mean of their micro-batch's width, so samples x seq_len are the padded
  // tokens computed (MFU's attention term, quadratic in T, is then a lower
  // bound: the mean's square is at most the squares' mean).
  int64_t seq_len = 0;
};

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The median (0 for none): the statistic of step times and repeats.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace ftb
