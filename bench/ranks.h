// How `ftbench run` runs a distributed scenario on world_size > 1 ranks of
// this machine: it starts world_size copies of itself through the launcher
// (bench/launcher.h), like torchrun, each told which scenario to run and
// where rank 0 leaves its result (FTB_LAUNCH_SCENARIO, FTB_LAUNCH_DIR). The
// parent folds rank 0's result into the one report; when a rank dies or
// fails, the row is `failed` with a reason naming the rank and its exit
// status or signal, and the others were stopped by the launcher.
#pragma once

#include <string>
#include <vector>

#include "core/run_config.h"
#include "core/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

// The command line this process was started with (set by main), re-used for
// the ranks.
void set_invocation(int argc, char** argv);

// Parent side: one repeat of `info` on config.world_size ranks.
ScenarioResult run_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank);

// Child side: true when this process is a rank started by run_on_ranks.
bool is_launched_rank();
// Runs the one scenario it was started for; rank 0 writes the result for the
// parent. Returns the exit code (non-zero on failure, after writing the
// reason where the parent finds it).
int run_launched_rank(const RunConfig& config, const std::vector<LoopCallback*>& rank0_callbacks);

}  // namespace ftb
