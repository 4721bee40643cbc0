#include "core/train/optimizer.h"

#include <map>
#include <mutex>

#include "core/model/compat.h"
#include "core/base/errors.h"
#include "core/train/foreach_adam.h"

namespace ftb {
namespace {

// The fused kernel behind the torch::optim interface: GradScaler unscales the
// param groups' grads, then this steps them in one kernel.
class FusedTorchAdam : public torch::optim::Adam {
 public:
  FusedTorchAdam(std::vector<torch::Tensor> params, double lr)
      : torch::optim::Adam(params, torch::optim::AdamOptions(lr)), fused_(params, lr) {}
  torch::Tensor step(LossClosure closure = nullptr) override {
    torch::Tensor loss;
    if (closure) {
      torch::AutoGradMode enable(true);
      loss = closure();
    }
    fused_.step();
    return loss;
  }

 private:
  FusedAdam fused_;
};

bool probe_fused(const torch::Device& device) {
  try {
    auto p = torch::zeros({1}, torch::TensorOptions().device(device));
    auto g = torch::ones({1}, p.options());
    auto m = torch::zeros_like(p), v = torch::zeros_like(p), s = torch::ones({}, p.options());
    at::_fused_adam_({p}, {g}, {m}, {v}, {}, {s}, 1e-3, 0.9, 0.999, 0.0, 1e-8, false, false, {}, {});
    return true;
  } catch (const c10::Error&) {
    return false;  // "Could not run 'aten::_fused_adam_' with arguments from the 'CPU' backend"
  }
}

}  // namespace

bool fused_adam_available(const torch::Device& device) {
  static std::mutex mu;
  static std::map<c10::DeviceType, bool> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(device.type());
  if (it == cache.end()) it = cache.emplace(device.type(), probe_fused(device)).first;
  return it->second;
}

AdamKernel resolve_adam_kernel(std::optional<AdamKernel> setting, const torch::Device& device) {
  if (!setting) return device.is_cuda() ? AdamKernel::foreach : AdamKernel::loop;
  if (*setting == AdamKernel::fused && !fused_adam_available(device))
    input_error("adam", "this LibTorch (" + std::string(TORCH_VERSION) + ") has no fused Adam kernel for " +
                            device.str() + " (use auto, loop or foreach)");
  return *setting;
}

std::unique_ptr<torch::optim::Adam> make_adam(std::vector<torch::Tensor> params, double lr, AdamKernel kernel) {
  switch (kernel) {
    case AdamKernel::fused: return std::make_unique<FusedTorchAdam>(std::move(params), lr);
    case AdamKernel::foreach: return std::make_unique<ForeachAdam>(std::move(params), torch::optim::AdamOptions(lr));
    case AdamKernel::loop: break;
  }
  return std::make_unique<torch::optim::Adam>(std::move(params), torch::optim::AdamOptions(lr));
}

std::unique_ptr<FusedAdam> make_device_adam(std::vector<torch::Tensor> params, double lr, const torch::Device& device) {
  return std::make_unique<FusedAdam>(std::move(params), lr, fused_adam_available(device));
}

std::string optimizer_label(const FusedAdam& adam, const std::string& layout) {
  return optimizer_label(adam.fused_kernel() ? AdamKernel::fused : AdamKernel::loop, layout);
}

std::string optimizer_label(AdamKernel kernel, const std::string& layout) {
  return "adam/" + to_string(kernel) + (layout.empty() ? "" : ", " + layout);
}

}  // namespace ftb
