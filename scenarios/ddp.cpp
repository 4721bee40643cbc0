// ddp: data parallel on c10d (the reference's step 5, strategy="ddp"). Each
// rank trains on a disjoint shard of every epoch; gradients are averaged by
// all-reduce in 25 MiB buckets issued from autograd hooks while backward
// runs; every rank takes the same Adam step. Precision: dp_precision
// (16-mixed on CUDA as the reference, fp32 on the CPU).
#include "core/autocast.h"
#include "core/device.h"
#include "scenarios/distributed.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo ddp_scenario() {
  ScenarioInfo s;
  s.name = "ddp";
  s.technique = "data parallel: bucketed gradient all-reduce overlapped with backward (the reference's step 5)";
  s.unavailable = [](const RunConfig& c) { return distributed_unavailable(c, c.dp_precision, "32"); };
  s.run = [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_data_parallel(w, c, ctx, dist::Sharding::none, rank_env());
  };
  s.precision_of = [](const RunConfig& c) {
    return precision_label(resolve_precision(c.dp_precision, resolve_device(c.device), "32"));
  };
  s.distributed = true;
  return s;
}

}  // namespace ftb
