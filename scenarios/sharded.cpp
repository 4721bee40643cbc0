// sharded: ZeRO-1, the reference's "ddp_sharded" (step 5b). Gradients are
// all-reduced as in ddp, but each rank keeps Adam state only for its chunk of
// every bucket (1/N of it), steps that chunk, and the parameters are
// all-gathered so every rank holds the updated model.
#include "core/autocast.h"
#include "core/device.h"
#include "scenarios/distributed.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo sharded_scenario() {
  ScenarioInfo s;
  s.name = "sharded";
  s.technique = "ZeRO-1: optimizer state sharded across ranks, parameters all-gathered (the reference's step 5b)";
  s.aliases = {"ddp_sharded", "zero1"};
  s.unavailable = [](const RunConfig& c) { return distributed_unavailable(c, c.dp_precision, "32"); };
  s.run = [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_data_parallel(w, c, ctx, dist::Sharding::optimizer, rank_env());
  };
  s.precision_of = [](const RunConfig& c) {
    return precision_label(resolve_precision(c.dp_precision, resolve_device(c.device), "32"));
  };
  s.distributed = true;
  return s;
}

}  // namespace ftb
