// baseline: the reference's plain PyTorch loop (step 1 of the table).
// fp32, Adam (lr from the config, no schedule) implemented as PyTorch's
// torch.optim.Adam picks (core/foreach_adam.h), one process.
#include "core/device.h"
#include "core/foreach_adam.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

ScenarioResult run_baseline(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  const auto device = resolve_device(c.device);
  auto model = w.make_model();
  model->to(device);
  auto adam = make_reference_adam(model->parameters(), c.lr, device, c.adam);  // as torch.optim.Adam picks
  auto& optimizer = *adam;
  RunLoaders loaders(w, c);
  reset_peak_memory(device);
  auto step = [&](const Batch& b) { return train_step(model, optimizer, b); };
  auto loop = run_fine_tuning(model, loaders.refs(), loop_options(c, "baseline", device), step, ctx.callbacks);
  auto r = result_from_loop("baseline", loop, device, "fp32");
  r.extra["adam"] = reference_adam_impl(device, c.adam);
  return r;
}

}  // namespace

ScenarioInfo baseline_scenario() {
  return {"baseline", "plain training loop, fp32, Adam (the reference's step 1)", {},
          [](const RunConfig&) { return std::string(); }, run_baseline};
}

}  // namespace ftb
