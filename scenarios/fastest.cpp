// fastest: the techniques that helped, stacked on one row, per device:
//   bucketing   length-bucketed batches (bucketed.cpp): everywhere;
//   fused Adam  one kernel per optimizer step (fused_adam.cpp), where this
//               LibTorch has it for the device;
//   bf16        bf16 autocast (amp_bf16.cpp) on CUDA only: on CPUs without
//               bf16 matmul units it costs time and accuracy (amp_bf16's
//               row in docs/results.md);
//   graph       the whole step captured in CUDA graphs (cuda_graph.cpp), one
//               per bucket length, where the CUDA-graph rows can run.
// its result's stack lists what this run stacked; the ladder (reports/views/ladder.h)
// measures each technique against the rung below it.
#include "core/measure/device.h"
#include "core/train/optimizer.h"
#include "scenarios/common.h"
#include "scenarios/cuda_graph.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kFastestName = "fastest";

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
    c.adam = AdamKernel::fused;
    stack.push_back("fused_adam");
  }
  const bool graph = cuda_graph_unavailable(c).empty();  // never without CUDA
  ScenarioResult r;
  if (graph) {
    stack.push_back("graph");  // its Adam is the fused kernel too
#ifdef FTB_WITH_CUDA
    r = run_captured_step(w, c, ctx, kFastestName, precision);
#endif
  } else {
    r = run_plain_loop(w, c, ctx, kFastestName, precision);
    r.extra["padding"] = "longest (forced: bucketing)";
    // On CUDA the graph is what accumulate left out: say so beside the stack.
    if (const auto why = graph_accumulate_unavailable(c); !why.empty() && device.is_cuda()) r.extra["graph_note"] = why;
  }
  stack.push_back("bucketing");
  r.stack = stack;  // what this run stacked (the ladder's rung)
  r.extra["bucketing"] = "on";
  return r;
}

}  // namespace

ScenarioInfo fastest_scenario() {
  ScenarioInfo s;
  s.name = kFastestName;
  s.technique = "what helped, stacked: bucketing + fused Adam (+ bf16 autocast and a CUDA graph per bucket length on CUDA); its stack in the report says which";
  s.technique_settings = {RowSetting::optimizer, RowSetting::precision};
  s.unavailable = runs_anywhere;
  s.replays_cuda_graphs = true;  // on CUDA
  s.precision_of = fastest_precision;
  s.run = run_fastest;
  return s;
}
FTB_REGISTER_SCENARIO(fastest_scenario, 2000);

}  // namespace ftb
