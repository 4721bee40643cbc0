// amp_bf16: bf16 mixed precision (the second variant of step 3 of the
// reference's table). Baseline's model, data and Adam; the forward (training
// and evaluation) runs under bf16 autocast. bf16 has fp32's exponent range, so
// gradients do not underflow and no loss scaling is needed. Runs on CPU or CUDA.
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kAmpBf16Name = "amp_bf16";

ScenarioResult run_amp_bf16(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  return run_plain_loop(w, c, ctx, kAmpBf16Name, Precision::bf16_mixed);
}

}  // namespace

ScenarioInfo amp_bf16_scenario() {
  ScenarioInfo s;
  s.name = kAmpBf16Name;
  s.technique = "bf16 autocast, no loss scaling, CPU or CUDA (the reference's step 3, bf16 variant)";
  s.technique_settings = {RowSetting::precision};
  s.stack = {"bf16"};
  s.precision = Precision::bf16_mixed;
  s.unavailable = runs_anywhere;
  s.run = run_amp_bf16;
  return s;
}
FTB_REGISTER_SCENARIO(amp_bf16_scenario, 500);

}  // namespace ftb
