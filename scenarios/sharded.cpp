// sharded: ZeRO-1, the reference's "ddp_sharded" (step 5b). Gradients are
// all-reduced as in ddp, but each rank keeps Adam state only for its chunk of
// every bucket (1/N of it), steps that chunk, and the parameters are
// all-gathered so every rank holds the updated model.
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo sharded_scenario() {
  ScenarioInfo s;
  s.name = "sharded";
  s.technique = "ZeRO-1: optimizer state sharded across ranks, parameters all-gathered (the reference's step 5b)";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"ddp_sharded", "zero1", "deepspeed_stage_1"};
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::optimizer, env);
                   });
}
FTB_REGISTER_SCENARIO(sharded_scenario, 1100);

}  // namespace ftb
