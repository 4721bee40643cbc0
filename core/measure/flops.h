// Model FLOPs and the machine's measured matmul peak, for MFU
// (model FLOPs utilisation = achieved model FLOP/s / peak FLOP/s).
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "core/model/hf_config.h"

namespace ftb {

// FLOPs of one training step (forward + backward) on a (B, T) batch, counted
// as nanoGPT/PaLM do (2 FLOPs per multiply-add forward, 4 backward; embedding
// lookups are not matmuls) over the work the classifier needs: every layer's
// projections and FFN on every row, attention (QK^T and AV) against T keys,
// and the head (pre_classifier or pooler, classifier) on the [CLS] row. In
// DistilBERT's last layer only keys and values are needed for every row
// (core/model/distilbert.cpp computes the rest for [CLS] alone), so that
// layer counts as such; an implementation that computes every row of it (the
// Python peer) does more work than it is credited with. Padded positions are
// computed, so T is the padded length.
double train_step_flops(const ModelConfig& c, int64_t B, int64_t T);

// Best of `reps` square (n x n) matmuls in `dtype` on `device`, in TFLOP/s:
// the measured peak MFU is reported against (no vendor table: a CPU or GPU we
// do not know is measured, not guessed).
double measure_matmul_tflops(const torch::Device& device, torch::Dtype dtype, int64_t n = 2048, int reps = 5);

}  // namespace ftb
