// fastest: the techniques that helped, stacked on one row, per device:
//   bucketing   length-bucketed batches (bucketed.cpp): everywhere;
//   fused Adam  one kernel per optimizer step (fused_adam.cpp), where this
//               LibTorch has it for the device;
//   bf16        bf16 autocast (amp_bf16.cpp) on CUDA only: on CPUs without
//               bf16 matmul units it did not help (results/cpu-smoke-*:
//               amp_bf16 0.29x on 11-29, 1.02x and 3.3 points less test
//               accuracy on 11-30).
// The CUDA-graph row is not stacked yet: a graph needs one static shape, and
// bucketing makes the length vary (one graph per bucket length is planned,
// tools/gpu_check.sh). extra.stack lists what this run stacked; the ladder
// (reports/ladder.h) measures each technique against the rung below it.
#include "core/train/device.h"
#include "core/train/optimizer.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "fastest";

Precision fastest_precision(const RunConfig& c) {
  return resolve_device(c.device).is_cuda() ? Precision::bf16_mixed : Precision::fp32;
}

ScenarioResult run_fastest(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  RunConfig c = with_bucketing(config);
  const auto device = resolve_device(c.device);
  const Precision precision = fastest_precision(c);
  nlohmann::json stack = nlohmann::json::array();
  if (precision == Precision::bf16_mixed) stack.push_back("bf16");
  if (fused_adam_available(device)) {
    c.adam = "fused";
    stack.push_back("fused_adam");
  }
  stack.push_back("bucketing");
  auto r = run_plain_loop(w, c, ctx, kName, precision);
  r.extra["stack"] = stack;
  r.extra["padding"] = "longest (forced: bucketing)";
  r.extra["bucketing"] = "on";
  return r;
}

}  // namespace

ScenarioInfo fastest_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "what helped, stacked: bucketing + fused Adam (+ bf16 autocast on CUDA); extra.stack says which";
  s.technique_settings = {RowSetting::optimizer, RowSetting::precision};
  s.unavailable = runs_anywhere;
  s.precision_of = fastest_precision;
  s.run = run_fastest;
  return s;
}

}  // namespace ftb
