#include "scenarios/parallel/host_optimizer.h"

#include <chrono>

#include "core/measure/device.h"
#include "core/train/optimizer.h"

namespace ftb::dist {

HostOptimizer::HostOptimizer(const std::vector<torch::Tensor>& shards, double lr) {
  torch::NoGradGuard no_grad;
  const bool pin = !shards.empty() && shards.front().is_cuda();
  for (const auto& s : shards) {
    const auto host = torch::TensorOptions().dtype(torch::kFloat).pinned_memory(pin);
    master_.push_back(torch::empty({s.numel()}, host).copy_(s.reshape({-1})));
    grads_.push_back(torch::zeros({s.numel()}, host));
  }
  adam_ = make_device_adam(master_, lr, torch::Device(torch::kCPU));
}

void HostOptimizer::refresh(const std::vector<torch::Tensor>& shards) {
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < shards.size(); ++i) master_[i].copy_(shards[i].reshape({-1}));
}

void HostOptimizer::step(const std::vector<torch::Tensor>& grads, const std::vector<torch::Tensor>& shards,
                         const torch::Tensor& found_inf) {
  torch::NoGradGuard no_grad;
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < grads.size(); ++i) grads_[i].copy_(grads[i].reshape({-1}), /*non_blocking=*/true);
  if (!grads.empty()) synchronize(grads.front().device());
  const torch::Tensor host_inf = found_inf.defined() ? found_inf.to(torch::kCPU) : torch::Tensor();
  wait_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  adam_->step(grads_, /*grad_scale=*/{}, host_inf);
  t0 = std::chrono::steady_clock::now();
  // Asynchronous from pinned memory: ordered before anything the caller then
  // runs on the device's stream (the all-gather of the updated shards).
  for (std::size_t i = 0; i < shards.size(); ++i) shards[i].copy_(master_[i].view(shards[i].sizes()), /*non_blocking=*/true);
  wait_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t HostOptimizer::host_bytes() const {
  int64_t n = adam_->state_bytes();
  for (std::size_t i = 0; i < master_.size(); ++i) n += master_[i].nbytes() + grads_[i].nbytes();
  return n;
}

int64_t HostOptimizer::bytes_per_step() const {
  int64_t n = 0;
  for (const auto& m : master_) n += 2 * m.nbytes();
  return n;
}

}  // namespace ftb::dist
