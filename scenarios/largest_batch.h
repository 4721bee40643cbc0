// largest_batch: the search behind the row (scenarios/largest_batch.cpp),
// apart so that a test can drive it without a device that runs out.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ftb {

// The largest batch b in [start, cap] with fits(b): doubles from start until
// a batch does not fit (or cap), then bisects between the last that fitted
// and the first that did not. Assumes fitting is monotone (a batch that fits
// means every smaller one fits). 0 when start itself does not fit. `tried`
// (optional) receives every (batch, fitted) in the order asked.
int64_t largest_fitting_batch(int64_t start, int64_t cap, const std::function<bool(int64_t)>& fits,
                              std::vector<std::pair<int64_t, bool>>* tried = nullptr);

// Adam's learning rate for batch b when base_lr was tuned for base_batch:
// the square-root rule (Malladi et al. 2022, "On the SDEs and Scaling Rules
// for Adaptive Gradient Algorithms"; SGD's rule is linear).
double sqrt_scaled_lr(double base_lr, int64_t base_batch, int64_t batch);

// The row trains at this fraction of the largest batch that fitted: the
// search's two steps are not the whole run (evaluation, a different
// allocation order, the allocator's fragmentation over an epoch).
inline constexpr double kLargestBatchFraction = 0.9;
// floor(fraction x found), never below `configured` (nor above found).
int64_t training_batch(int64_t found, double fraction, int64_t configured);

// One search per configuration and device in a process: repeats of the row
// (and rounds) reuse the first one's result instead of searching again.
struct BatchSearch {
  int64_t found = 0;                            // largest batch that fitted (0: not even the configured one)
  std::vector<std::pair<int64_t, bool>> tried;  // (batch, fitted) in the order asked
  double seconds = 0;                           // the search's time, once
};
// The search for `key` (device + what decides memory), made by `search` the
// first time it is asked; `reused` says whether this call made it.
const BatchSearch& search_once(const std::string& key, const std::function<BatchSearch()>& search,
                               bool* reused = nullptr);

}  // namespace ftb
