// cuda_graph_fp16: the cuda_graph row (cuda_graph.cpp: the whole training
// step captured once and replayed) with the reference's fp16 mixed precision,
// as amp is baseline with fp16: the forward under fp16 autocast, the loss
// scaled, and the GradScaler's check, skip and rescale done on the device
// inside the graph (scenarios/sync_free_step.h), so a replay never waits for
// the host to read found_inf. Parameters and Adam stay fp32; the report's
// skipped_steps counts the steps skipped for overflow, as amp's does.
#include "scenarios/cuda_graph.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "cuda_graph_fp16";

#ifdef FTB_WITH_CUDA
ScenarioResult run_cuda_graph_fp16(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  return run_captured_step(w, config, ctx, kName, Precision::fp16_mixed);
}
#endif

}  // namespace

ScenarioInfo cuda_graph_fp16_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "cuda_graph with the forward under fp16 autocast and the loss scaler on the device (fp32 weights and Adam)";
  s.technique_settings = {RowSetting::optimizer, RowSetting::precision};
  s.precision = Precision::fp16_mixed;
  s.stack = {"fp16", "fused_adam", "graph"};  // the capturable Adam is the fused kernel
  s.unavailable = cuda_graph_unavailable;
#ifdef FTB_WITH_CUDA
  s.run = run_cuda_graph_fp16;
#endif
  return s;
}

}  // namespace ftb
