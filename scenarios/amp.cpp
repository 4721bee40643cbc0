// amp: fp16 mixed precision with dynamic loss scaling (step 3 of the
// reference's table). Baseline's model, data and Adam; the forward (training
// and evaluation) runs under fp16 autocast, the loss is scaled before backward
// and the step is skipped when a gradient overflowed. Needs CUDA: see amp_bf16
// for the CPU row.
#include "core/autocast.h"
#include "core/device.h"
#include "core/foreach_adam.h"
#include "core/grad_scaler.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

std::string amp_unavailable(const RunConfig& c) {
  if (resolve_device(c.device).is_cuda()) return "";
  return "fp16 autocast with loss scaling needs CUDA (device \"" + c.device +
         "\" is the CPU); LibTorch 2.x has CPU fp16 autocast, but that is not what the reference "
         "measures: on CPU see amp_bf16";
}

ScenarioResult run_amp(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  const auto device = resolve_device(c.device);
  auto model = w.make_model();
  model->to(device);  // parameters stay fp32: autocast casts inside the ops
  auto adam = make_reference_adam(model->parameters(), c.lr, device, c.adam);  // as torch.optim.Adam picks
  auto& optimizer = *adam;
  GradScaler scaler;  // PyTorch's defaults: 65536, x2 every 2000 clean steps, x0.5 on overflow
  RunLoaders loaders(w, c);
  reset_peak_memory(device);
  auto step = [&](const Batch& b) {
    optimizer.zero_grad();
    torch::Tensor loss, correct;
    {
      AutocastGuard autocast(device.type(), torch::kHalf);
      std::tie(loss, correct) = forward_loss(model, b);  // loss is fp32 (forward_loss casts the logits)
    }
    scaler.scale(loss).backward();  // outside autocast, as in Python
    scaler.step(optimizer);         // one sync: reads found_inf
    scaler.update();
    return StepOutput{loss.detach(), correct};
  };
  auto eval_forward = [&](const Batch& b) {
    AutocastGuard autocast(device.type(), torch::kHalf);
    return forward_loss(model, b);
  };
  auto loop = run_fine_tuning(model, loaders.refs(), loop_options(c, "amp", device), step, ctx.callbacks,
                              eval_forward);
  auto r = result_from_loop("amp", loop, device, "fp16-mixed");
  r.extra["adam"] = reference_adam_impl(device, c.adam);
  r.skipped_steps = scaler.skipped_steps();
  r.extra["loss_scale_final"] = scaler.scale_value();
  r.extra["loss_scale_init"] = scaler.options().init_scale;
  return r;
}

}  // namespace

ScenarioInfo amp_scenario() {
  return {"amp", "fp16 autocast + dynamic loss scaling (GradScaler), CUDA only (the reference's step 3)", {},
          amp_unavailable, run_amp, "fp16-mixed"};
}

}  // namespace ftb
