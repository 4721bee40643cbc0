// Pieces every scenario file uses: loop options from the config, and the
// result record from a finished loop.
#pragma once

#include <string>

#include "core/run_config.h"
#include "core/train_loop.h"
#include "core/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

LoopOptions loop_options(const RunConfig& c, const std::string& scenario, const torch::Device& device);

// The three loaders of a run (train shuffled, val/test in order).
struct RunLoaders {
  BatchLoader train, val, test;
  RunLoaders(const Workload& w, const RunConfig& c);
  // This rank's shards (train: equal shards of each epoch's permutation;
  // val/test: every example on exactly one rank).
  RunLoaders(const Workload& w, const RunConfig& c, int rank, int world_size);
  Loaders refs() { return {train, val, test}; }
};

// Fills the measured fields of a ScenarioResult from the loop's output.
ScenarioResult result_from_loop(const std::string& scenario, const LoopResult& loop,
                                const torch::Device& device, const std::string& precision);

}  // namespace ftb
