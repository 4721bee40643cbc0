// The profiling pass of a row (`ftbench run --profile`, config key profile):
// after the row's timed repeats, one more run of the row that stops after
// warmup_steps + profile steps, with the steps after the warm-up under the
// operator profiler (core/measure/op_profiler.h). Nothing of this pass
// reaches a timed figure: the row's times, throughputs and accuracy come from
// its repeats; the pass only adds result.profile and the trace
// <out_dir>/profiles/<row>.trace.json.gz.
#pragma once

#include <string>

#include "core/measure/op_profile.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

// The folder of the traces, below a run's report folder, and a row's trace in it.
constexpr const char* kProfilesDir = "profiles";
std::string profile_trace_name(const std::string& row);  // "profiles/<row>.trace.json.gz"

// The pass's config: one epoch of warmup_steps + profile steps, one
// evaluation batch, one repeat.
RunConfig profile_pass_config(RunConfig config);

// Runs the pass of an ok single-process row (the trace goes below `out_dir`;
// none when it is empty). The profile's note says what was measured and how,
// or why nothing was (a row whose steps ran in another process, an epoch
// shorter than the window, an error of the pass: the row stays ok).
OpProfile profile_row(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                      const std::string& out_dir);

// A row of kind ranks on world_size ranks of this machine (the rank
// protocol): the ranks run the pass's config and rank 0 is profiled.
OpProfile profile_ranks_row(const ScenarioInfo& info, const RunConfig& config, const std::string& out_dir,
                            int threads_per_rank);

// `p`'s note, with UNVERIFIED appended for a row that replays CUDA graphs
// when the profile has device activity (CUPTI's graph-kernel records).
std::string label_graph_profile(OpProfile p, const ScenarioInfo& info);

// The note of a row not profiled, saying why.
OpProfile profile_not_taken(const std::string& why);
bool has_steps(const OpProfile& p);

}  // namespace ftb
