// The rank protocol: how `ftbench run` runs a row of kind `ranks` on
// world_size > 1 ranks of this machine. It starts world_size copies of itself
// through the launcher (launcher.h), like torchrun, each told which scenario
// to run and where rank 0 leaves its result. This file is the only code that
// reads or writes the FTB_LAUNCH_* variables:
//   FTB_LAUNCH_SCENARIO  the row a rank runs (one repeat)
//   FTB_LAUNCH_DIR       where rank 0 writes result.json and a failing rank
//                        rank-<N>.error
//   FTB_THREADS          intra-op threads of each rank (set by the launcher)
//   FTB_LAUNCH_PROFILE   the profiling pass (scenarios/profile_pass.h): rank 0
//                        profiles and writes its trace here ("-": none)
// The parent folds rank 0's result into the one report; when a rank dies or
// fails, the row is `failed` with a reason naming the rank and its exit
// status or signal, and the others were stopped by the launcher.
#pragma once

#include <string>
#include <vector>

#include "core/measure/op_profile.h"
#include "core/train/run_config.h"
#include "scenarios/scenario.h"

namespace ftb {

// The command line this process was started with (set by main), re-used for
// the ranks.
void set_invocation(int argc, char** argv);
// Its arguments (without the program name), as given.
const std::vector<std::string>& invocation();

// Parent side: one repeat of `info` on config.world_size ranks.
ScenarioResult run_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank);
// Parent side: the row's profiling pass on config.world_size ranks, rank 0
// profiled (its trace to `trace_path`; none when empty).
OpProfile profile_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank,
                           const std::string& trace_path);

// Child side: true when this process is a rank started by run_on_ranks.
bool is_launched_rank();
// This program's path (/proc/self/exe): what ranks and calibrate's runs execute.
std::string self_executable();
// Runs the one scenario it was started for (config's scenarios and repeats
// are replaced by the protocol's); rank 0 writes the result for the parent.
// Returns the exit code (non-zero on failure, after writing the reason where
// the parent finds it).
int run_launched_rank(RunConfig config, const std::vector<LoopCallback*>& rank0_callbacks);

}  // namespace ftb
