// amp_bf16: bf16 mixed precision (the second variant of step 3 of the
// reference's table). Baseline's model, data and Adam; the forward (training
// and evaluation) runs under bf16 autocast. bf16 has fp32's exponent range, so
// gradients do not underflow and no loss scaling is needed. Runs on CPU or CUDA.
#include "core/autocast.h"
#include "core/device.h"
#include "core/foreach_adam.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

ScenarioResult run_amp_bf16(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  const auto device = resolve_device(c.device);
  auto model = w.make_model();
  model->to(device);  // parameters stay fp32: autocast casts inside the ops
  auto adam = make_reference_adam(model->parameters(), c.lr, device, c.adam);  // as torch.optim.Adam picks
  auto& optimizer = *adam;
  RunLoaders loaders(w, c);
  reset_peak_memory(device);
  auto forward = [&](const Batch& b) {
    AutocastGuard autocast(device.type(), torch::kBFloat16);
    return forward_loss(model, b);  // loss is fp32 (forward_loss casts the logits)
  };
  auto step = [&](const Batch& b) {
    optimizer.zero_grad();
    auto [loss, correct] = forward(b);
    loss.backward();  // outside autocast, as in Python
    optimizer.step();
    return StepOutput{loss.detach(), correct};
  };
  auto loop = run_fine_tuning(model, loaders.refs(), loop_options(c, "amp_bf16", device), step, ctx.callbacks,
                              forward);
  auto r = result_from_loop("amp_bf16", loop, device, "bf16-mixed");
  r.extra["adam"] = reference_adam_impl(device, c.adam);
  return r;
}

}  // namespace

ScenarioInfo amp_bf16_scenario() {
  return {"amp_bf16", "bf16 autocast, no loss scaling, CPU or CUDA (the reference's step 3, bf16 variant)", {},
          [](const RunConfig&) { return std::string(); }, run_amp_bf16, "bf16-mixed"};
}

}  // namespace ftb
