// What the distributed scenarios (ddp, sharded, zero2, fabric) share: which
// rank this process is, its device and precision, joining the process group,
// and the report's distributed fields. Each scenario file holds only its
// technique.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dist/communicator.h"
#include "core/dist/data_parallel.h"
#include "core/dist_env.h"
#include "scenarios/common.h"

namespace ftb {

// cuda:LOCAL_RANK on CUDA (one GPU per rank), else the CPU.
torch::Device rank_device(const RunConfig& c, const DistEnv& env);
// "auto" -> 16-mixed on CUDA (the reference's steps 5-7 keep step 3's fp16),
// `cpu_auto` on the CPU; anything else as given.
std::string resolve_precision(const std::string& setting, const torch::Device& device, const std::string& cpu_auto);
// Why a distributed scenario cannot run here with this config ("" = it can).
std::string distributed_unavailable(const RunConfig& c, const std::string& precision_setting,
                                    const std::string& cpu_auto);
std::shared_ptr<dist::Communicator> join_group(const RunConfig& c, const DistEnv& env, const torch::Device& device,
                                               const std::string& name);
// A metric reducer for LoopOptions::sum_across_ranks over `comm`.
SumAcrossRanks sum_over(dist::Communicator& comm);
// Fills the distributed fields of r (rank 0's view).
void fill_distributed(ScenarioResult& r, const dist::DataParallel& dp, dist::Communicator& comm,
                      const LoopResult& loop);

// The ddp / sharded / zero2 scenarios: the baseline loop with the gradients
// synchronised (and the optimizer sharded) by dist::DataParallel, in the
// precision of `dp_precision`.
// env: this rank (dist_env_or_world_of_one() for the scenarios; tests pass
// their own to run ranks as threads of one process).
ScenarioResult run_data_parallel(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                                 dist::Sharding sharding, const DistEnv& env);
// The fabric scenario's loop (scenarios/fabric.cpp), with the rank given.
ScenarioResult run_fabric(const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env);

// The registry entry of a distributed scenario: runs `run` as this process's
// rank, skipped where distributed_unavailable says so; `precision` is the
// config key holding its precision, whose "auto" is 16-mixed on CUDA and
// `cpu_auto` on the CPU.
using RankRun = std::function<ScenarioResult(const Workload&, const RunConfig&, const ScenarioContext&, const DistEnv&)>;
ScenarioInfo distributed_scenario(std::string name, std::string technique, std::vector<std::string> aliases,
                                  std::string RunConfig::*precision, std::string cpu_auto, RankRun run);

}  // namespace ftb
