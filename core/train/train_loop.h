// The fine-tuning loop every scenario shares: epochs of timed training steps,
// validation after each epoch, test at the end, with callbacks (the Trainer
// interface; the progress bar is one). A scenario supplies only the step.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/train/batching.h"
#include "core/measure/phases.h"
#include "core/train/train_step.h"
#include "core/measure/records.h"

namespace ftb {

struct LoopState {
  std::string scenario;
  int64_t epoch = 0;           // 1-based during an epoch
  int64_t epochs = 0;
  int64_t step = 0;            // global steps done
  int64_t steps_per_epoch = 0;
  int64_t total_steps = 0;
};

class LoopCallback {
 public:
  virtual ~LoopCallback() = default;
  virtual void on_train_start(const LoopState&) {}
  virtual void on_epoch_start(const LoopState&) {}
  // Called after each step. On a CPU the record is complete; on a device
  // its loss and step_ms are NaN (reading them would wait on the device every
  // step): on_epoch_steps brings the complete records of the epoch.
  virtual void on_batch_end(const LoopState&, const StepRecord&) {}
  // The epoch's step records, complete, once read from the device (one wait
  // per epoch), before validation.
  virtual void on_epoch_steps(const LoopState&, const std::vector<StepRecord>&) {}
  virtual void on_validation_end(const LoopState&, const EpochRecord&) {}
  virtual void on_epoch_end(const LoopState&, const EpochRecord&) {}
  virtual void on_train_end(const LoopState&) {}
};

struct LoopOptions {
  std::string scenario;
  int64_t epochs = 1;
  int64_t max_steps_per_epoch = 0;  // 0 = whole epoch
  int64_t eval_max_batches = 0;     // 0 = all
  int64_t warmup_steps = 0;         // excluded from step_ms_median
  // accumulate=K: each step's batch is K micro-batches (the step splits
  // them); the record's seq_len is what they computed on (computed_seq_len).
  int64_t accumulate = 1;
  torch::Device device = torch::kCPU;
  // Distributed runs: epoch metrics, sample counts and evaluation are summed
  // over ranks, so the result describes the whole run (global samples/s).
  SumAcrossRanks sum_across_ranks;
};

struct Loaders {
  BatchLoader& train;
  BatchLoader& val;
  BatchLoader& test;
};

using StepFn = std::function<StepOutput(const Batch&)>;

struct LoopResult {
  std::vector<EpochRecord> epochs;
  std::vector<StepRecord> steps;
  double wall_time_s = 0;   // training + per-epoch validation (the reference's timing)
  double train_time_s = 0;  // training steps only (throughput's denominator)
  int64_t train_samples = 0, train_tokens = 0;  // over all ranks
  int64_t rank_train_samples = 0;               // this rank's share
  double loader_wait_s = 0;
  double step_ms_median = 0;  // over steps after warm-up
  // Post-warm-up samples (all ranks) over post-warm-up time (step + loader
  // wait): the steady-state throughput (steady_throughput).
  double steady_samples_per_s = 0;
  PhaseTimes phases;          // this rank's train phases, validation and test
  EvalResult test;
};

// Steady-state throughput: the samples of the steps after `warmup_steps` over
// their time, step plus the wait for its batch (a loader that cannot keep up
// is part of the steady state), times `ranks_scale` (all ranks' samples over
// this rank's). 0 when no step follows the warm-up.
double steady_throughput(const std::vector<StepRecord>& steps, int64_t warmup_steps, double ranks_scale = 1);

// Runs the loop; the test pass happens after on_train_end (so a callback can
// restore the best checkpoint first) and outside the timed region.
LoopResult run_fine_tuning(SequenceClassifier& model, Loaders loaders,
                           const LoopOptions& options, const StepFn& step,
                           const std::vector<LoopCallback*>& callbacks,
                           const EvalForward& eval_forward = nullptr);


}  // namespace ftb
