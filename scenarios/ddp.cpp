// ddp: data parallel on c10d (the reference's step 5, strategy="ddp"). Each
// rank trains on a disjoint shard of every epoch; gradients are averaged by
// all-reduce in 25 MiB buckets issued from autograd hooks while backward
// runs; every rank takes the same Adam step. Precision: dp_precision
// (16-mixed on CUDA as the reference, fp32 on the CPU).
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo ddp_scenario() {
  ScenarioInfo s;
  s.name = "ddp";
  s.technique = "data parallel: bucketed gradient all-reduce overlapped with backward (the reference's step 5)";
  s.technique_settings = {RowSetting::world_size, RowSetting::threads};
  s.aliases = {"NO_SHARD"};  // FSDP's name for unsharded data parallelism
  return ranks_row(s, &RunConfig::dp_precision, /*cpu_auto=*/Precision::fp32,
                   [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
                     return run_data_parallel(w, c, ctx, dist::Sharding::none, env);
                   });
}
FTB_REGISTER_SCENARIO(ddp_scenario, 1000);

}  // namespace ftb
