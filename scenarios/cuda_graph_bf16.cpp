// cuda_graph_bf16: the cuda_graph row (cuda_graph.cpp: the whole training
// step captured once and replayed) with its forward under bf16 autocast, as
// amp_bf16 is baseline with bf16: the row the two techniques make together.
// Parameters and Adam stay fp32; no loss scaling (bf16 has fp32's range).
// Measured against baseline, its gain over amp_bf16 is what the graph buys
// at bf16, and over cuda_graph what bf16 buys inside a graph.
#include "scenarios/cuda_graph.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo cuda_graph_bf16_scenario() {
  return captured_step_scenario("cuda_graph_bf16", Precision::bf16_mixed,
                                "cuda_graph with the forward under bf16 autocast (fp32 weights and Adam, no loss scaling)",
                                {"bf16", "fused_adam", "graph"});  // the capturable Adam is the fused kernel
}
FTB_REGISTER_SCENARIO(cuda_graph_bf16_scenario, 800);

}  // namespace ftb
