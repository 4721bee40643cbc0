// fabric: the reference's last row (step 7): a plain training loop written
// against the Fabric-style API of scenarios/parallel/fabric.h, which brings the strategy
// (fabric_strategy, zero2 by default as the reference) and the precision
// (fabric_precision: 16-mixed on CUDA as the reference, bf16-mixed on CPU).
#include "core/train/autocast.h"
#include "core/measure/device.h"
#include "scenarios/parallel/fabric.h"
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {
constexpr const char* kFabricName = "fabric";
}  // namespace

ScenarioResult run_fabric(const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
  const auto requested = resolve_device(c.device);
  FabricOptions fo;
  fo.accelerator = requested.is_cuda() ? requested.str() : "cpu";  // --device cuda:N holds for a world of one
  fo.devices = c.world_size;
  fo.strategy = c.fabric_strategy;
  fo.precision = resolve_precision(c.fabric_precision, requested, Precision::bf16_mixed);
  fo.bucket_cap_bytes = static_cast<int64_t>(c.bucket_mb * 1024 * 1024);
  fo.timeout = std::chrono::milliseconds(static_cast<int64_t>(c.dist_timeout_s * 1000));
  fo.group_name = "fabric/" + std::to_string(ctx.repeat);
  fo.accumulate = c.accumulate;

  // ---- the user's loop, as with Lightning Fabric ----
  Fabric fabric(fo);
  fabric.launch(env);
  auto model = w.make_model();
  auto& optimizer = fabric.setup(model, AdamConfig{c.lr});
  check_device_budget(fabric.strategy(), c.max_device_bytes);  // the harness's, as the other rows: before training
  BatchLoader train(w.train, fabric.setup_dataloader(w.train_loader_options(c)));
  BatchLoader val(w.val, fabric.setup_dataloader(w.eval_loader_options(c)));
  BatchLoader test(w.test, fabric.setup_dataloader(w.eval_loader_options(c)));
  auto forward = [&](const Batch& b) {
    auto precision = fabric.forward_context();
    return forward_loss(model, b);
  };
  // accumulate=K: K micro-batches' backwards, the first K-1 inside
  // no_backward_sync, then one optimizer step (K = 1: the plain loop).
  auto step = [&](const Batch& b) {
    optimizer.zero_grad();
    const auto out = accumulate_gradients(b, c.accumulate, forward, [&](const torch::Tensor& loss, bool last) {
      auto no_sync = fabric.no_backward_sync(/*enabled=*/!last);
      fabric.backward(loss);
    });
    optimizer.step();
    return out;
  };
  // ---------------------------------------------------

  const auto& eval_forward = forward;
  reset_peak_memory(fabric.device());
  auto options = loop_options(c, kFabricName, fabric.device());
  options.sum_across_ranks = sum_over(fabric.comm(), fabric.strategy());
  fabric.comm().reset_wait();
  RowPhases phases(fabric.strategy(), fabric.comm());  // training and evaluation apart (memory, collectives)
  auto loop = run_fine_tuning(model, {train, val, test}, options, step, phases.with(ctx.callbacks), eval_forward);
  phases.finish();
  auto r = result_from_loop(kFabricName, loop, fabric.device(), fabric.precision(), fabric.strategy().optimizer_label());
  fill_distributed(r, fabric.strategy(), fabric.comm(), loop, phases);
  r.skipped_steps = fabric.skipped_steps();
  r.extra["fabric"] = {{"accelerator", fo.accelerator}, {"devices", fabric.world_size()},
                       {"strategy", to_string(fo.strategy)}, {"precision", to_string(fo.precision)}};
  return r;
}

ScenarioInfo fabric_scenario() {
  ScenarioInfo s;
  s.name = kFabricName;
  s.technique = "Fabric-style API (launch, setup, backward) around a plain loop; zero2 + 16-mixed (the reference's step 7)";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads, RowSetting::precision};
  return ranks_row(s, &RunConfig::fabric_precision, /*cpu_auto=*/Precision::bf16_mixed, run_fabric);
}
FTB_REGISTER_SCENARIO(fabric_scenario, 1600);

}  // namespace ftb
