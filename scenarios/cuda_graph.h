// The captured training step behind the CUDA-graph rows (cuda_graph.cpp,
// cuda_graph_bf16.cpp): one graph of forward, backward and a capturable Adam
// step, replayed for every batch at one static shape.
#pragma once

#include <string>
#include <vector>

#include "core/measure/precision.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/scenario.h"

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#endif

namespace ftb {

// Why the CUDA-graph rows cannot run here; "" when they can. After the
// device's reasons, graph_accumulate_unavailable's.
std::string cuda_graph_unavailable(const RunConfig& c);
// Why a captured step cannot run this config's accumulate (the graph replays
// one batch's forward, backward and Adam step; gradient accumulation would
// need K captured micro-steps and a separate optimizer graph); "" for 1.
std::string graph_accumulate_unavailable(const RunConfig& c);

// The ScenarioInfo of a CUDA-graph row: run_captured_step in `precision`,
// skipped where cuda_graph_unavailable says so, stacking `stack` (each row
// file, cuda_graph*.cpp, gives its name, technique and what it stacks).
ScenarioInfo captured_step_scenario(const std::string& name, Precision precision, std::string technique,
                                    std::vector<std::string> stack);

#ifdef FTB_WITH_CUDA
// Ends a capture that failed part way (scenarios/capture_guard.h): the
// stream leaves capture mode, the partial graph is discarded, the caching
// allocator stops routing to its pool, the graph's use of the pool is
// released (CUDAGraph::reset releases it only after a capture that ended:
// a failed one kept the pool's blocks reserved for the rest of the process)
// and the capture's CUDA error is cleared. `pool_uses_before`: the pool's
// use count before this graph's capture_begin (pool_use_count). Never throws.
void abandon_capture(at::cuda::CUDAGraph& graph, c10::DeviceIndex device, int pool_uses_before) noexcept;
// The caching allocator's count of graphs using `pool` (0: none, or unknown).
int pool_use_count(c10::DeviceIndex device, at::cuda::MempoolId_t pool) noexcept;

// One repeat of the row `name` with the step captured in `precision` (fp32,
// bf16_mixed, or fp16_mixed with the loss scaler on the device); one graph at
// max_length, or with config.bucketing "on" one per bucket length.
ScenarioResult run_captured_step(const Workload& w, const RunConfig& config, const ScenarioContext& ctx,
                                 const std::string& name, Precision precision);
#endif

}  // namespace ftb
