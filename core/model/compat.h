// The LibTorch ftbench builds against: 2.4 or newer (the torch wheel
// tools/setup.sh installs; the GPU machines' 2.11). CMakeLists.txt refuses an
// older one at configure time; this header says so again at compile time.
// Project code calls the helpers here, never version-specific names.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#define FTB_TORCH_AT_LEAST(maj, min) \
  (TORCH_VERSION_MAJOR > (maj) || (TORCH_VERSION_MAJOR == (maj) && TORCH_VERSION_MINOR >= (min)))
static_assert(FTB_TORCH_AT_LEAST(2, 4), "ftbench needs LibTorch 2.4 or newer (tools/setup.sh installs the torch wheel)");

namespace ftb::compat {

// softmax(q k^T / sqrt(D) + mask) v, mask: bool, true = attend, broadcastable
// to (B, H, T, T). Dropout on the attention weights when dropout_p > 0.
inline torch::Tensor sdpa(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& mask, double dropout_p) {
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false);
}

}  // namespace ftb::compat
