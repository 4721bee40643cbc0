// amp: fp16 mixed precision with dynamic loss scaling (step 3 of the
// reference's table). Baseline's model, data and Adam; the forward (training
// and evaluation) runs under fp16 autocast, the loss is scaled before backward
// and the step is skipped when a gradient overflowed. Needs CUDA: see amp_bf16
// for the CPU row.
#include "core/measure/device.h"
#include "core/train/grad_scaler.h"
#include "scenarios/common.h"
#include "core/measure/phase_recorder.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kAmpName = "amp";

std::string amp_unavailable(const RunConfig& c) {
  if (resolve_device(c.device).is_cuda()) return "";
  return "fp16 autocast with loss scaling needs CUDA (device \"" + c.device +
         "\" is the CPU); LibTorch 2.x has CPU fp16 autocast, but that is not what the reference "
         "measures: on CPU see amp_bf16";
}

ScenarioResult run_amp(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  SingleProcess p(w, c, kAmpName);  // parameters stay fp32: autocast casts inside the ops
  GradScaler scaler;  // PyTorch's defaults: 65536, x2 every 2000 clean steps, x0.5 on overflow
  const auto forward = autocast_forward(p.model, p.device, Precision::fp16_mixed);
  auto step = [&](const Batch& b) {
    {
      PhaseScope phase(Phase::optimizer);
      p.optimizer.zero_grad();
    }
    // Each micro-batch's loss (accumulate=K: scaled 1/K) is scaled by the
    // loss scale before its backward; the sum is unscaled once, in step().
    const auto out = accumulate_gradients(b, c.accumulate, forward, [&](const torch::Tensor& loss, bool) {
      PhaseScope phase(Phase::backward);
      scaler.scale(loss).backward();  // outside autocast, as in Python
    });
    PhaseScope phase(Phase::optimizer);
    scaler.step(p.optimizer);  // one sync: reads found_inf
    scaler.update();
    return out;
  };
  auto r = p.result(p.fit(step, ctx, forward), Precision::fp16_mixed);
  r.skipped_steps = scaler.skipped_steps();
  r.extra["loss_scale_final"] = scaler.scale_value();
  r.extra["loss_scale_init"] = scaler.options().init_scale;
  return r;
}

}  // namespace

ScenarioInfo amp_scenario() {
  ScenarioInfo s;
  s.name = kAmpName;
  s.technique = "fp16 autocast + dynamic loss scaling (GradScaler), CUDA only (the reference's step 3)";
  s.technique_settings = {RowSetting::precision};
  s.precision = Precision::fp16_mixed;
  s.unavailable = amp_unavailable;
  s.run = run_amp;
  return s;
}
FTB_REGISTER_SCENARIO(amp_scenario, 400);

}  // namespace ftb
