// The untimed warm-up pass: before the first timed row, one per device and
// precision, so that no row pays another's one-time setup (CUDA context,
// cuBLAS/cuDNN handles, autocast and optimizer kernels' first launch, the
// allocator's first blocks, oneDNN's primitive caches on a CPU). Its cost is
// measured and reported once, in the report's environment ("warmup"), never
// mixed into a row's wall time nor silently dropped.
#pragma once

#include <torch/torch.h>

#include "core/measure/precision.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"

namespace ftb {

// Trains a fresh model of the workload for `steps` steps on `batch` (on the
// device) under `precision` (autocast for the mixed ones) with the config's
// Adam, and with also_fused every other step with the fused kernel where this
// LibTorch has it (so both get their first launch). Returns the model, in
// train mode. The caller synchronises. What warm_up and largest_batch's
// search (will this batch fit?) both do.
SequenceClassifier train_throwaway(const Workload& w, const RunConfig& c, const Batch& batch,
                                   const torch::Device& device, Precision precision, int steps,
                                   bool also_fused = false);

// The padded lengths (sorted, once each) of the batches `options` makes of
// `split` in epochs 0 .. epochs-1, at most max_batches of each (0 = all):
// the shapes a row with variable-length batches will compute on. Host only.
// With accumulate = K > 1 the loader's batches are a step's K micro-batches:
// their widths (split_micro_batches) are the shapes, not the batch's.
std::vector<int64_t> padded_lengths(const TokenizedSplit& split, LoaderOptions options, int epochs,
                                    int64_t max_batches = 0, int64_t accumulate = 1);

struct WarmUp {
  double seconds = 0;        // everything below, device-synchronised
  int64_t lengths = 0;       // sequence lengths warmed beyond the first batch's (train and evaluation shapes)
  double lengths_s = 0;      // their part of `seconds`
};

// Trains a throwaway model of the workload for `steps` steps on the first
// training batch under `precision` (autocast for the mixed ones; the
// config's Adam, plus the fused kernel where this LibTorch has it), then one
// evaluation forward. On a GPU with variable-length batches (padding=longest,
// or bucketing) it then runs one forward and backward at every training
// length the run will see and one evaluation forward at every evaluation
// length: cuDNN builds an execution plan per new shape (seconds each), which
// would otherwise land in the timed loop of whichever row first meets the
// shape.
WarmUp warm_up(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision, int steps = 3);

}  // namespace ftb
