// zero2: ZeRO stage 2, the reference's "deepspeed_stage_2" (step 6). Each
// bucket's gradients are reduce-scattered as soon as backward fills it, so a
// rank keeps only its chunk's averaged gradients (and Adam state); after its
// step the parameters are all-gathered. Where the backend has no
// reduce-scatter the communicator emulates it and the report says so
// (distributed.comm_fallback).
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo zero2_scenario() {
  ScenarioInfo s;
  s.name = "zero2";
  s.technique = "ZeRO-2: gradients reduce-scattered and optimizer state sharded (the reference's step 6)";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"deepspeed_stage_2", "SHARD_GRAD_OP"};  // FSDP's name for the same sharding
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::gradients, env);
                   });
}
FTB_REGISTER_SCENARIO(zero2_scenario, 1200);

}  // namespace ftb
