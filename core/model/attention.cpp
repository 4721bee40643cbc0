#include "core/model/attention.h"

#include "core/model/compat.h"

namespace ftb {

std::string sdpa_backend(const torch::Device& device, torch::ScalarType dtype, int64_t batch, int64_t heads,
                         int64_t length, int64_t head_dim, double dropout_p) {
#if FTB_TORCH_AT_LEAST(2, 3)
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
#else
  (void)device, (void)dtype, (void)batch, (void)heads, (void)length, (void)head_dim, (void)dropout_p;
  return "unknown";
#endif
}

#if FTB_TORCH_AT_LEAST(2, 3)
CudnnAttentionOff::CudnnAttentionOff() : was_enabled_(at::globalContext().userEnabledCuDNNSDP()) {
  at::globalContext().setSDPUseCuDNN(false);
}

CudnnAttentionOff::~CudnnAttentionOff() { at::globalContext().setSDPUseCuDNN(was_enabled_); }
#else
CudnnAttentionOff::CudnnAttentionOff() : was_enabled_(false) {}  // no cuDNN attention before 2.3
CudnnAttentionOff::~CudnnAttentionOff() = default;
#endif

}  // namespace ftb
