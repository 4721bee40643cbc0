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

ScenarioInfo cuda_graph_fp16_scenario() {
  return captured_step_scenario("cuda_graph_fp16", Precision::fp16_mixed,
                                "cuda_graph with the forward under fp16 autocast and the loss scaler on the device (fp32 weights and Adam)",
                                {"fp16", "fused_adam", "graph"});  // the capturable Adam is the fused kernel
}
FTB_REGISTER_SCENARIO(cuda_graph_fp16_scenario, 900);

}  // namespace ftb
