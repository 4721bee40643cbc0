// One row: runs a scenario `repeats` times and aggregates (medians of time
// and throughput, max of memory, MFU from the timed steps). A scenario that
// cannot run here is `skipped` with its reason; one that throws is `failed`
// with the first line of the error, and the sweep goes on. Bad input
// (InputError) is not a failed row: it stops the run with exit code 2.
#pragma once

#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

// The row's identity (name, world size, precision) and, when it cannot run
// here, status skipped with the reason; status ok otherwise.
ScenarioResult row_header(const ScenarioInfo& info, const RunConfig& config);

// `repeat` runs one repeat (normally info.run; the sweep swaps in the rank
// launcher for rows of kind ranks).
using RepeatFn = std::function<ScenarioResult(const Workload&, const RunConfig&, const ScenarioContext&)>;

// Repeat number context.repeat of a row that is ok so far: on success the
// repeat's detail records (epochs, steps, accuracy, counters) replace row's,
// its samples are appended to row.repeats and the aggregates and MFU are
// recomputed from all of them; on an exception row becomes failed with the
// first line of the error (bad input, InputError, propagates; Interrupted
// leaves row failed with reason "interrupted" and propagates). The sweep
// calls it round by round, so that repeats of different rows alternate.
void run_repeat(ScenarioResult& row, const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                const ScenarioContext& context, const RepeatFn& repeat = nullptr);

// All config.repeats repeats of one row, one after the other.
ScenarioResult run_scenario(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                            ScenarioContext context, const RepeatFn& repeat = nullptr);

// The failure reason of a row that ran out of memory (c10::OutOfMemoryError,
// on a GPU or from a CPU allocation that failed): the settings that decide
// the memory and what to change, then what the allocator tried to allocate.
std::string does_not_fit_reason(const RunConfig& config, const std::string& allocator_message);

// Model TFLOP/s over the steps after warm-up, and MFU against `peak_tflops`
// (0 = unknown, MFU left 0).
void compute_efficiency(ScenarioResult& r, const ModelConfig& model, int64_t warmup_steps,
                        double peak_tflops);

}  // namespace ftb
