// Runs one scenario `repeats` times and aggregates: medians of time and
// throughput, max of memory, MFU from the timed steps. A scenario that cannot
// run here is `skipped` with its reason; one that throws is `failed` with the
// error, and the sweep goes on.
#pragma once

#include "core/run_config.h"
#include "core/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

ScenarioResult run_scenario(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                            ScenarioContext context);

// Fills step_ms_median-based efficiency: model TFLOP/s over the steps after
// warm-up, and MFU against `peak_tflops` (0 = unknown, MFU left 0).
void compute_efficiency(ScenarioResult& r, const DistilBertConfig& model, int64_t warmup_steps,
                        double peak_tflops);

}  // namespace ftb
