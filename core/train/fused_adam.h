// FusedAdam (build it with make_device_adam, core/train/optimizer.h): Adam
// (no weight decay, no amsgrad, as the reference's
// torch.optim.Adam) on ATen's fused kernel, with every piece of state on the
// parameters' device and allocated up front. That makes the step capturable
// in a CUDA graph: the step counters are device tensors incremented on the
// device (torch::optim::Adam keeps a host int64 and computes the bias
// corrections on the host, which capture would freeze).
//
// Same math as torch::optim::Adam / torch.optim.Adam(fused=True). The fused
// kernel exists on CUDA from LibTorch 2.0 and on the CPU from 2.4; where it is
// missing (another device type) the same math runs as per-tensor ATen ops, and
// kernel() says which ran.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/model/compat.h"

namespace ftb {

class FusedAdam {
 public:
  // fused_kernel = true where this LibTorch has no fused kernel for the
  // parameters' device throws (c10::Error); make_device_adam chooses for you.
  FusedAdam(std::vector<torch::Tensor> params, double lr, bool fused_kernel = true, double beta1 = 0.9,
            double beta2 = 0.999, double eps = 1e-8);
  // Fills grads with zeros in place (keeps their addresses, as a captured
  // graph needs); allocates missing grads.
  void zero_grad();
  // One Adam step. grad_scale/found_inf: the GradScaler protocol (unscale in
  // the kernel, skip when found_inf != 0), all on the device, no host sync.
  void step(const torch::Tensor& grad_scale = {}, const torch::Tensor& found_inf = {});
  // The same with the gradients given (one per parameter, same shapes): for
  // parameters that are views into flat buffers (scenarios/parallel/data_parallel.h).
  void step(const std::vector<torch::Tensor>& grads, const torch::Tensor& grad_scale,
            const torch::Tensor& found_inf);
  // Back to the state right after construction (zeros), in place.
  void reset_state();
  int64_t state_bytes() const;  // exp_avg + exp_avg_sq (+ steps)

  // "fused" (aten::_fused_adam_) or "loop" (per-tensor ATen ops, same math).
  const char* kernel() const { return fused_kernel_ ? "fused" : "loop"; }
  bool fused_kernel() const { return fused_kernel_; }

 private:
  std::vector<torch::Tensor> params_, exp_avg_, exp_avg_sq_, steps_;
  double lr_, beta1_, beta2_, eps_;
  bool fused_kernel_;
  void loop_step(const std::vector<torch::Tensor>& grads, const torch::Tensor& grad_scale,
                 const torch::Tensor& found_inf);
};

}  // namespace ftb
