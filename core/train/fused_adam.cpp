#include "core/train/fused_adam.h"

#include <cmath>
#include <string>

#include "core/train/optimizer.h"

namespace ftb {

FusedAdam::FusedAdam(std::vector<torch::Tensor> params, double lr, bool fused_kernel, double beta1, double beta2,
                     double eps)
    : params_(std::move(params)), lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps), fused_kernel_(fused_kernel) {
  // Asking for the fused kernel where this LibTorch has none is an error here,
  // not a step that silently does nothing (before 2.0 the call is compiled
  // out) or throws later: make_device_adam picks the per-tensor path instead.
  TORCH_CHECK(!fused_kernel_ || params_.empty() || fused_adam_available(params_.front().device()),
              "FusedAdam: this LibTorch (", TORCH_VERSION, ") has no fused Adam kernel for ",
              params_.empty() ? std::string() : params_.front().device().str(),
              "; build it with make_device_adam, which falls back to per-tensor ops");
  for (auto& p : params_) {
    exp_avg_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    exp_avg_sq_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    // float32 scalar on the param's device: the fused kernel reads it there
    steps_.push_back(torch::zeros({}, p.options().dtype(torch::kFloat)));
  }
}

void FusedAdam::zero_grad() {
  torch::NoGradGuard no_grad;
  for (auto& p : params_) {
    if (p.grad().defined()) p.mutable_grad().zero_();
    else p.mutable_grad() = torch::zeros_like(p);
  }
}

void FusedAdam::step(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) {
  std::vector<torch::Tensor> grads;
  grads.reserve(params_.size());
  for (auto& p : params_) grads.push_back(p.grad());
  step(grads, grad_scale, found_inf);
}

void FusedAdam::step(const std::vector<torch::Tensor>& grads, const torch::Tensor& grad_scale,
                     const torch::Tensor& found_inf) {
  TORCH_CHECK(grads.size() == params_.size(), "FusedAdam::step: one gradient per parameter");
  torch::NoGradGuard no_grad;
  if (!fused_kernel_) return loop_step(grads, grad_scale, found_inf);
  // Increment before the kernel, which reads the step from device memory
  // (as torch/optim/adam.py's _fused_adam does).
  at::_foreach_add_(steps_, 1);
  std::optional<at::Tensor> scale, inf;
  if (grad_scale.defined()) scale = grad_scale;
  if (found_inf.defined()) inf = found_inf;
  at::_fused_adam_(params_, grads, exp_avg_, exp_avg_sq_, /*max_exp_avg_sqs=*/{}, steps_, lr_, beta1_, beta2_,
                   /*weight_decay=*/0.0, eps_, /*amsgrad=*/false, /*maximize=*/false, scale, inf);
  // A skipped step (inf/NaN gradients) must not count.
  if (found_inf.defined()) at::_foreach_sub_(steps_, std::vector<torch::Tensor>(steps_.size(), found_inf));
}

// torch.optim.Adam's single-tensor math, one parameter at a time. Reads
// found_inf and the step on the host (one sync per step): this path serves
// LibTorch builds without the fused kernel, where nothing is captured.
void FusedAdam::loop_step(const std::vector<torch::Tensor>& grads, const torch::Tensor& grad_scale,
                          const torch::Tensor& found_inf) {
  if (found_inf.defined() && found_inf.item<double>() != 0) return;  // a skipped step does not count
  for (size_t i = 0; i < params_.size(); ++i) {
    torch::Tensor g = grads[i];
    if (!g.defined()) continue;
    if (grad_scale.defined()) g = g / grad_scale;
    steps_[i].add_(1);
    const double step = steps_[i].item<double>();
    const double bc1 = 1 - std::pow(beta1_, step), bc2 = 1 - std::pow(beta2_, step);
    exp_avg_[i].mul_(beta1_).add_(g, 1 - beta1_);
    exp_avg_sq_[i].mul_(beta2_).addcmul_(g, g, 1 - beta2_);
    const auto denom = (exp_avg_sq_[i].sqrt() / std::sqrt(bc2)).add_(eps_);
    params_[i].addcdiv_(exp_avg_[i], denom, -lr_ / bc1);
  }
}

void FusedAdam::reset_state() {
  torch::NoGradGuard no_grad;
  for (auto* v : {&exp_avg_, &exp_avg_sq_, &steps_})
    for (auto& t : *v) t.zero_();
}

int64_t FusedAdam::state_bytes() const {
  int64_t n = 0;
  for (const auto* v : {&exp_avg_, &exp_avg_sq_, &steps_})
    for (const auto& t : *v) n += static_cast<int64_t>(t.nbytes());
  return n;
}

}  // namespace ftb
