// zero2_offload: ZeRO-2 with ZeRO-Offload, the reference's
// "deepspeed_stage_2_offload" ("at a cost in performance"): as zero2, and the
// fp32 master of each rank's shard, Adam's state and Adam's step move to host
// memory (scenarios/parallel/data_parallel.h). The device keeps the
// parameters and the rank's gradient shard; each step copies the gradient
// shard device-to-host and the updated shard back. On a CPU the device is
// the host: the same code runs and its copies are host to host.
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo zero2_offload_scenario() {
  ScenarioInfo s;
  s.name = "zero2_offload";
  s.technique = "ZeRO-2 with the optimizer offloaded: master shard, Adam state and step in host memory";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"deepspeed_stage_2_offload"};
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::gradients, env, /*offload=*/true);
                   });
}
FTB_REGISTER_SCENARIO(zero2_offload_scenario, 1300);

}  // namespace ftb
