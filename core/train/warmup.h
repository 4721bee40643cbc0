// The untimed warm-up pass: before the first timed row, one per device and
// precision, so that no row pays another's one-time setup (CUDA context,
// cuBLAS/cuDNN handles, autocast and optimizer kernels' first launch, the
// allocator's first blocks, oneDNN's primitive caches on a CPU). Its cost is
// measured and reported once, in the report's environment ("warmup"), never
// mixed into a row's wall time nor silently dropped.
#pragma once

#include <torch/torch.h>

#include "core/train/precision.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"

namespace ftb {

// Trains a throwaway model of the workload for `steps` steps on the first
// training batch under `precision` (autocast for the mixed ones; the
// config's Adam, plus the fused kernel where this LibTorch has it), then one
// evaluation forward. Returns its wall time in seconds (device-synchronised).
double warm_up(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision, int steps = 3);

}  // namespace ftb
