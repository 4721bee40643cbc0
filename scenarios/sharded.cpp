// sharded: ZeRO-1, the reference's "ddp_sharded" (step 5b). Gradients are
// all-reduced as in ddp, but each rank keeps Adam state only for its chunk of
// every bucket (1/N of it), steps that chunk, and the parameters are
// all-gathered so every rank holds the updated model.
#include "scenarios/distributed.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo sharded_scenario() {
  return distributed_scenario(
      "sharded", "ZeRO-1: optimizer state sharded across ranks, parameters all-gathered (the reference's step 5b)",
      {"ddp_sharded", "zero1"}, &RunConfig::dp_precision, "32",
      [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env) {
        return run_data_parallel(w, c, ctx, dist::Sharding::optimizer, env);
      });
}

}  // namespace ftb
