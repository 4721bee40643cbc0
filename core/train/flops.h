// Model FLOPs and the machine's measured matmul peak, for MFU
// (model FLOPs utilisation = achieved model FLOP/s / peak FLOP/s).
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "core/model/hf_config.h"

namespace ftb {

// FLOPs of one training step (forward + backward) on a (B, T) batch, counted
// as nanoGPT/PaLM do: 6 N per token for the matmul weights (embeddings
// excluded: lookups, not matmuls) plus 12 L C T per token for attention
// (QK^T and AV, forward and backward). Padded positions are computed, so T is
// the padded length.
double train_step_flops(const ModelConfig& c, int64_t B, int64_t T);
// Parameters in matmul weights (per layer 4C^2 + 2CF, head C^2 + CL, biases excluded).
int64_t matmul_params(const ModelConfig& c);

// Best of `reps` square (n x n) matmuls in `dtype` on `device`, in TFLOP/s:
// the measured peak MFU is reported against (no vendor table: a CPU or GPU we
// do not know is measured, not guessed).
double measure_matmul_tflops(const torch::Device& device, torch::Dtype dtype, int64_t n = 2048, int reps = 5);

}  // namespace ftb
