// What the distributed scenarios (ddp, sharded, zero2, fabric) share: which
// rank this process is, its device and precision, joining the process group,
// and the report's distributed fields. Each scenario file holds only its
// technique.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/parallel/communicator.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/fully_sharded.h"
#include "scenarios/parallel/held_memory.h"
#include "scenarios/parallel/rank_env.h"
#include "scenarios/common.h"

namespace ftb {

// cuda:LOCAL_RANK on CUDA (one GPU per rank), else the CPU.
torch::Device rank_device(const RunConfig& c, const DistEnv& env);
// auto (nullopt) -> fp16-mixed on CUDA (the reference's steps 5-7 keep step
// 3's fp16), `cpu_auto` on the CPU; anything else as given.
Precision resolve_precision(const std::optional<Precision>& setting, const torch::Device& device, Precision cpu_auto);
// Why a distributed scenario cannot run here with this config ("" = it can).
std::string distributed_unavailable(const RunConfig& c, const std::optional<Precision>& precision_setting,
                                    Precision cpu_auto);
std::shared_ptr<dist::Communicator> join_group(const RunConfig& c, const DistEnv& env, const torch::Device& device,
                                               const std::string& name);
// A metric reducer for LoopOptions::sum_across_ranks over `comm`.
SumAcrossRanks sum_over(dist::Communicator& comm);
// The same for a row trained by `dp`. Evaluation's sum (under no_grad) is the
// one collective every rank reaches, with or without an evaluation batch:
// there a rank that had none first joins what the others' first batch did
// collectively (GradientSync::join_evaluation: zero3's gathers), so a split
// with fewer examples than ranks cannot hang.
SumAcrossRanks sum_over(dist::Communicator& comm, dist::GradientSync& dp);
// The loop's two phases for a distributed row, told apart by its callbacks:
// training (the steps) and evaluation (validation, test and every metric
// sum, the epoch's training totals included). Each phase gets the device
// bytes the strategy held (dist::HeldMemory: the strategy's hooks sample
// into it) and the collective traffic and wait of its own, so evaluation's
// (zero3 gathers every unit once a pass) is not divided by training steps.
class RowPhases : public LoopCallback {
 public:
  RowPhases(dist::GradientSync& dp, dist::Communicator& comm);
  ~RowPhases() override;
  RowPhases(const RowPhases&) = delete;
  RowPhases& operator=(const RowPhases&) = delete;
  // `callbacks` and this one, for run_fine_tuning.
  std::vector<LoopCallback*> with(const std::vector<LoopCallback*>& callbacks);
  void on_train_start(const LoopState&) override { enter(dist::MemoryPhase::training); }
  void on_epoch_start(const LoopState&) override { enter(dist::MemoryPhase::training); }
  void on_epoch_steps(const LoopState&, const std::vector<StepRecord>&) override { enter(dist::MemoryPhase::evaluation); }
  void on_train_end(const LoopState&) override { enter(dist::MemoryPhase::evaluation); }
  // After the loop: the last phase closed, nothing counts after it.
  void finish();

  struct Traffic {
    std::map<std::string, int64_t> bytes;  // by collective, as Communicator::bytes_by_collective
    double wait_s = 0;
  };
  const Traffic& traffic(dist::MemoryPhase p) const { return traffic_[static_cast<std::size_t>(p)]; }
  const dist::HeldMemory& memory() const { return memory_; }

 private:
  void enter(dist::MemoryPhase p);
  void close();  // the communicator's counters since the last change go to the current phase

  dist::GradientSync& dp_;
  dist::Communicator& comm_;
  dist::HeldMemory memory_;
  std::optional<dist::MemoryPhase> phase_;
  std::array<Traffic, 2> traffic_;
  std::map<std::string, int64_t> bytes_mark_;
  double wait_mark_ = 0;
};

// Fills the distributed fields of r (rank 0's view; the held bytes of every
// rank, gathered: a collective, so every rank calls it).
void fill_distributed(ScenarioResult& r, const dist::GradientSync& dp, dist::Communicator& comm,
                      const LoopResult& loop, const RowPhases& phases);
// Throws, before any training, where the worst phase of `dp`'s modelled
// device bytes exceeds the budget (max_device_bytes; 0 = none), naming the
// phase, its bytes by kind and both phases' totals.
void check_device_budget(const dist::GradientSync& dp, int64_t max_device_bytes);

// The ddp / sharded / zero2 / zero3 scenarios (and the offload ones): the
// baseline loop with the gradients synchronised (and the optimizer, the
// gradients, the parameters sharded) by dist::DataParallel, or per unit by
// dist::FullyShardedUnits (zero3), in the precision of `dp_precision`.
// env: this rank (dist_env_or_world_of_one() for the scenarios; tests pass
// their own to run ranks as threads of one process).
// offload: ZeRO-Offload (the shard's master, Adam and its step on the host).
ScenarioResult run_data_parallel(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                                 dist::Sharding sharding, const DistEnv& env, bool offload = false);
// The fabric scenario's loop (scenarios/fabric.cpp), with the rank given.
ScenarioResult run_fabric(const Workload& w, const RunConfig& c, const ScenarioContext& ctx, const DistEnv& env);

// Completes the registry entry of a row of kind `ranks` (name, technique and
// aliases already set by the row's file): runs `run` as this process's rank,
// skipped where distributed_unavailable says so; `precision` is the config
// key holding its precision, whose auto is fp16-mixed on CUDA and `cpu_auto`
// on the CPU.
using RankRun = std::function<ScenarioResult(const Workload&, const RunConfig&, const ScenarioContext&, const DistEnv&)>;
ScenarioInfo ranks_row(ScenarioInfo s, std::optional<Precision> RunConfig::*precision, Precision cpu_auto, RankRun run);

}  // namespace ftb
