// zero3_offload: zero3 with ZeRO-Offload (the reference's
// "deepspeed_stage_3_offload"): the fp32 master of each unit's shard, Adam's
// state and its step in host memory (scenarios/parallel/host_optimizer.h).
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo zero3_offload_scenario() {
  ScenarioInfo s;
  s.name = "zero3_offload";
  s.technique = "ZeRO-3 with the optimizer offloaded: master shards, Adam state and step in host memory";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"deepspeed_stage_3_offload"};
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::parameters, env, /*offload=*/true);
                   });
}
FTB_REGISTER_SCENARIO(zero3_offload_scenario, 1500);

}  // namespace ftb
