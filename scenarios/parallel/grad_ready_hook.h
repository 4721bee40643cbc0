// Runs a function once a parameter's gradient has been accumulated in
// backward (a post-hook on its gradient accumulator): how DataParallel
// issues a bucket's collective and FullyShardedUnits a unit's
// reduce-scatter while backward goes on.
#pragma once

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

namespace ftb::dist {

// The hooked accumulator: keep it alive as long as the hook should fire.
// std::invalid_argument when `param` is not a leaf that requires grad.
inline std::shared_ptr<torch::autograd::Node> on_grad_accumulated(const torch::Tensor& param,
                                                                  std::function<void()> fn) {
  struct Hook : torch::autograd::FunctionPostHook {
    explicit Hook(std::function<void()> f) : fn(std::move(f)) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list& /*inputs*/) override {
      fn();
      return outputs;
    }
    std::function<void()> fn;
  };
  auto acc = torch::autograd::impl::grad_accumulator(param);
  if (!acc) throw std::invalid_argument("every parameter must be a leaf that requires grad");
  acc->add_post_hook(std::make_unique<Hook>(std::move(fn)));
  return acc;
}

}  // namespace ftb::dist
