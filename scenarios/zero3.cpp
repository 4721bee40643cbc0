// zero3: ZeRO stage 3 / PyTorch FSDP's FULL_SHARD (the reference's
// "deepspeed_stage_3" and "fsdp"): each rank keeps 1/N of every parameter,
// gradient and Adam state, per unit (embeddings, each transformer block, the
// head). A unit's parameters are all-gathered just before its forward (the
// next unit's gather issued first: prefetch), freed after it, gathered again
// for its backward, and its gradients reduce-scattered as soon as backward
// leaves it (scenarios/parallel/fully_sharded.h).
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo zero3_scenario() {
  ScenarioInfo s;
  s.name = "zero3";
  s.technique = "ZeRO-3 / FSDP FULL_SHARD: parameters, gradients and optimizer state sharded per unit, "
                "gathered just in time with prefetch";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"deepspeed_stage_3", "fsdp", "FULL_SHARD"};
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::parameters, env);
                   });
}
FTB_REGISTER_SCENARIO(zero3_scenario, 1400);

}  // namespace ftb
