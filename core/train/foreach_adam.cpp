#include "core/train/foreach_adam.h"

#include <cmath>

#include "core/model/compat.h"
#include "core/base/errors.h"

namespace ftb {
namespace {

// The optimizer's state map is keyed by the parameter's TensorImpl pointer.
template <class Map>
void* state_key(const Map&, const torch::Tensor& p) {
  return p.unsafeGetTensorImpl();
}

}  // namespace

torch::Tensor ForeachAdam::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) {
    auto& o = static_cast<torch::optim::AdamOptions&>(group.options());
    TORCH_CHECK(o.weight_decay() == 0 && !o.amsgrad(),
                "ForeachAdam: weight decay and amsgrad are not implemented (the reference uses neither)");
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    std::vector<at::Scalar> step_sizes, bias_correction2_sqrts;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state()[state_key(state(), p)];
      if (!slot) {
        auto s = std::make_unique<torch::optim::AdamParamState>();
        s->step(0);
        s->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        s->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(s);
      }
      auto& s = static_cast<torch::optim::AdamParamState&>(*slot);
      s.step(s.step() + 1);
      // Host-side bias corrections, as Python's non-capturable foreach path.
      const double bc1 = 1 - std::pow(beta1, static_cast<double>(s.step()));
      const double bc2 = 1 - std::pow(beta2, static_cast<double>(s.step()));
      step_sizes.emplace_back(-o.lr() / bc1);
      bias_correction2_sqrts.emplace_back(std::sqrt(bc2));
      params.push_back(p);
      grads.push_back(p.grad());
      exp_avgs.push_back(s.exp_avg());
      exp_avg_sqs.push_back(s.exp_avg_sq());
    }
    if (params.empty()) continue;
    at::_foreach_lerp_(exp_avgs, grads, 1 - beta1);
    at::_foreach_mul_(exp_avg_sqs, beta2);
    at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2);
    auto denom = at::_foreach_sqrt(exp_avg_sqs);
    at::_foreach_div_(denom, bias_correction2_sqrts);
    at::_foreach_add_(denom, o.eps());
    at::_foreach_addcdiv_(params, exp_avgs, denom, step_sizes);
  }
  return loss;
}

}  // namespace ftb
