// The few LibTorch calls that differ between Debian's 1.13 and the 2.x wheels
// (see shared/LIBTORCH-NOTES.md). Project code calls these, never the
// version-specific names.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#define FTB_TORCH_AT_LEAST(maj, min) \
  (TORCH_VERSION_MAJOR > (maj) || (TORCH_VERSION_MAJOR == (maj) && TORCH_VERSION_MINOR >= (min)))

namespace ftb::compat {

// c10::optional before 2.2 (no conversion from std::optional), std::optional after.
#if FTB_TORCH_AT_LEAST(2, 2)
template <typename T>
using optional = std::optional<T>;
#else
template <typename T>
using optional = c10::optional<T>;
#endif

// softmax(q k^T / sqrt(D) + mask) v, mask: bool, true = attend, broadcastable
// to (B, H, T, T). Dropout on the attention weights when dropout_p > 0.
inline torch::Tensor sdpa(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& mask, double dropout_p) {
#if FTB_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false);
#else
  return std::get<0>(at::_scaled_dot_product_attention(q, k, v, mask, dropout_p,
                                                        /*need_attn_weights=*/false,
                                                        /*is_causal=*/false));
#endif
}

}  // namespace ftb::compat
