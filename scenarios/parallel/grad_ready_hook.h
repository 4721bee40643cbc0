// Runs a function once a parameter's gradient has been accumulated in
// backward (a post-hook on its gradient accumulator): how DataParallel
// issues a bucket's collective and FullyShardedUnits a unit's
// reduce-scatter while backward goes on.
#pragma once

#include <ATen/record_function.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

namespace ftb::dist {

// The profiler's name for a hook's run (its category rule: "grad_ready_hook").
inline constexpr const char* kGradReadyHookRange = "ftb::dist::grad_ready_hook";

// The hooked accumulator: keep it alive as long as the hook should fire.
// std::invalid_argument when `param` is not a leaf that requires grad.
inline std::shared_ptr<torch::autograd::Node> on_grad_accumulated(const torch::Tensor& param,
                                                                  std::function<void()> fn) {
  struct Hook : torch::autograd::FunctionPostHook {
    explicit Hook(std::function<void()> f) : fn(std::move(f)) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list& /*inputs*/) override {
      // An operator range in a profile (`run --profile`), as PyTorch's DDP
      // reducer names its hook work ("torch.distributed.ddp.reducer::..."):
      // the hook's own host time (bookkeeping, issuing a collective) is
      // communication in the summary (reports/analysis/profile.cpp), not
      // untracked time between autograd's operators. The operators it calls
      // (copies, c10d ranges) stay its children, with their own categories.
      RECORD_FUNCTION(kGradReadyHookRange, c10::ArrayRef<const c10::IValue>{});
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
