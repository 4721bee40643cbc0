// The attention DistilBertForSequenceClassification runs (core/model/distilbert.cpp),
// in HF's config._attn_implementation names: at::scaled_dot_product_attention
// with a boolean key mask (compat::sdpa). Reports state it
// (environment.attn_implementation), beside the Python peer's, and each row
// states which SDPA kernel ran (extra.attention_backend): on a GPU the
// choice between cuDNN's, memory-efficient, flash and math kernels depends
// on the dtype, the shape, the mask and the global SDPA switches.
#pragma once

#include <torch/torch.h>

#include <string>

namespace ftb {

inline constexpr const char* kAttnImplementation = "sdpa";

// The kernel at::scaled_dot_product_attention picks, as the global switches
// stand now, for `heads` heads of `head_dim` over `length` tokens of
// `batch` rows in `dtype` on `device` with a boolean key mask:
// "flash_attention" | "efficient_attention" | "cudnn_attention" | "math" |
// "overrideable" | "error" (none fits), or "unknown" where this LibTorch
// cannot say.
std::string sdpa_backend(const torch::Device& device, torch::ScalarType dtype, int64_t batch, int64_t heads,
                         int64_t length, int64_t head_dim, double dropout_p);

// cuDNN's SDPA kernel switched off while this lives (the previous setting
// restored after): the CUDA-graph rows capture the memory-efficient kernel,
// which captures, rather than cuDNN's, which PyTorch has disabled under
// capture in some versions.
class CudnnAttentionOff {
 public:
  CudnnAttentionOff();
  ~CudnnAttentionOff();
  CudnnAttentionOff(const CudnnAttentionOff&) = delete;
  CudnnAttentionOff& operator=(const CudnnAttentionOff&) = delete;

 private:
  bool was_enabled_;
};

}  // namespace ftb
