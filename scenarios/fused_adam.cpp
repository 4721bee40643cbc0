// fused_adam: baseline with Adam's fused kernel (torch.optim.Adam(fused=True)):
// the same loop, model, data and precision, one kernel per optimizer step.
// It is here so that what the fused optimizer buys on its own is measured,
// never credited to the technique of a row that needs it (cuda_graph's
// capturable step, the data-parallel rows' step over flat buckets).
#include "core/measure/device.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kFusedAdamName = "fused_adam";

std::string fused_unavailable(const RunConfig& c) {
  const auto device = resolve_device(c.device);
  if (fused_adam_available(device)) return "";
  return "this LibTorch (" + std::string(TORCH_VERSION) + ") has no fused Adam kernel for " + device.str();
}

ScenarioResult run_fused_adam(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  RunConfig c = config;
  c.adam = AdamKernel::fused;  // the only difference from baseline
  return run_plain_loop(w, c, ctx, kFusedAdamName);
}

}  // namespace

ScenarioInfo fused_adam_scenario() {
  ScenarioInfo s;
  s.name = kFusedAdamName;
  s.technique = "baseline with the fused Adam kernel: what the optimizer alone buys";
  s.technique_settings = {RowSetting::optimizer};
  s.stack = {"fused_adam"};
  s.unavailable = fused_unavailable;
  s.run = run_fused_adam;
  return s;
}
FTB_REGISTER_SCENARIO(fused_adam_scenario, 200);

}  // namespace ftb
