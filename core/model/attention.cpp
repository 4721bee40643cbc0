#include "core/model/attention.h"

#include "core/model/compat.h"

namespace ftb {

std::string sdpa_backend(const torch::Device& device, torch::ScalarType dtype, int64_t batch, int64_t heads,
                         int64_t length, int64_t head_dim, double dropout_p) {
  const auto options = torch::TensorOptions().dtype(dtype).device(device);
  const auto q = torch::empty({batch, heads, length, head_dim}, options);
  const auto mask = torch::ones({batch, 1, 1, length}, torch::TensorOptions().dtype(torch::kBool).device(device));
  switch (static_cast<at::SDPBackend>(at::_fused_sdp_choice(q, q, q, mask, dropout_p, /*is_causal=*/false))) {
    case at::SDPBackend::error: return "error";
    case at::SDPBackend::math: return "math";
    case at::SDPBackend::flash_attention: return "flash_attention";
    case at::SDPBackend::efficient_attention: return "efficient_attention";
    case at::SDPBackend::cudnn_attention: return "cudnn_attention";
    case at::SDPBackend::overrideable: return "overrideable";
  }
  return "unknown";
}

CudnnAttentionOff::CudnnAttentionOff() : was_enabled_(at::globalContext().userEnabledCuDNNSDP()) {
  at::globalContext().setSDPUseCuDNN(false);
}

CudnnAttentionOff::~CudnnAttentionOff() { at::globalContext().setSDPUseCuDNN(was_enabled_); }

}  // namespace ftb
