// baseline: the reference's plain PyTorch loop (step 1 of the table).
// fp32, Adam (lr from the config, no schedule) with the kernels PyTorch's
// torch.optim.Adam picks (core/train/optimizer.h), one process.
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kBaselineName = "baseline";

ScenarioResult run_baseline(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  return run_plain_loop(w, c, ctx, kBaselineName);
}

}  // namespace

ScenarioInfo baseline_scenario() {
  ScenarioInfo s;
  s.name = kBaselineName;
  s.technique = "plain training loop, fp32, Adam (the reference's step 1)";
  s.unavailable = runs_anywhere;
  s.run = run_baseline;
  return s;
}
FTB_REGISTER_SCENARIO(baseline_scenario, 100);

}  // namespace ftb
