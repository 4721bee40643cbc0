// amp_bf16: bf16 mixed precision (the second variant of step 3 of the
// reference's table). Baseline's model, data and Adam; the forward (training
// and evaluation) runs under bf16 autocast. bf16 has fp32's exponent range, so
// gradients do not underflow and no loss scaling is needed. Runs on CPU or CUDA.
#include "core/train/autocast.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "amp_bf16";

ScenarioResult run_amp_bf16(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  SingleProcess p(w, c, kName);  // parameters stay fp32: autocast casts inside the ops
  auto forward = [&](const Batch& b) {
    AutocastGuard autocast(p.device.type(), torch::kBFloat16);
    return forward_loss(p.model, b);  // loss is fp32 (forward_loss casts the logits)
  };
  auto step = [&](const Batch& b) {
    p.optimizer.zero_grad();
    auto [loss, correct] = forward(b);
    loss.backward();  // outside autocast, as in Python
    p.optimizer.step();
    return StepOutput{loss.detach(), correct};
  };
  return p.result(p.fit(step, ctx, forward), Precision::bf16_mixed);
}

}  // namespace

ScenarioInfo amp_bf16_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "bf16 autocast, no loss scaling, CPU or CUDA (the reference's step 3, bf16 variant)";
  s.technique_settings = {RowSetting::precision};
  s.precision = Precision::bf16_mixed;
  s.unavailable = runs_anywhere;
  s.run = run_amp_bf16;
  return s;
}

}  // namespace ftb
