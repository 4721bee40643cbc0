// The sweep: runs the selected rows of one `ftbench run` and decides
// everything about how they run, so that the command only turns flags into a
// config, calls the sweep and writes outputs:
//  - world size (0 = one rank per GPU, 2 on a CPU; an outside launcher's wins);
//  - row order: the order asked for; under an outside launcher the rows of
//    kind `ranks` first (all ranks together), then rank 0 alone runs the
//    single-process rows with every core;
//  - repeats in rounds: round i runs the i-th repeat of every row (ABC ABC,
//    not AA BB CC), so two rows' i-th repeats share the machine's state and
//    their ratio is paired by round (reports/analysis/intervals.h);
//  - threads: a process alone gets `threads` (0 = every core); N ranks on one
//    machine split them;
//  - the matmul peaks MFU is measured against (per precision, measured here);
//  - one untimed warm-up pass per device and precision before the first
//    timed row (core/train/warmup.h), its cost reported once;
//  - single process vs ranks, from the row's declared kind (rows of kind
//    `ranks` with world_size > 1 run as ranks of this executable, started by
//    the launcher; parallel/rank_protocol.h);
//  - profiles (config.profile > 0): after every round, one untimed pass per
//    ok row with its steps after the warm-up under the operator profiler
//    (scenarios/profile_pass.h); rows of kind ranks on their ranks, rank 0
//    profiled; not under an outside launcher;
//  - interruption: SIGINT/SIGTERM ends the row in progress between two steps
//    (failed, reason "interrupted"), the report keeps the finished rows and
//    that one, and the rows not started are left out;
//  - the failure policy: a failed row is recorded and the sweep goes on; under
//    an outside launcher a failed rank stops (its peers would wait in a
//    collective until the timeout), after rank 0 wrote what it has.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/parallel/rank_env.h"
#include "scenarios/scenario.h"

namespace ftb {

class Sweep {
 public:
  // Resolves world size and threads and selects the rows (InputError naming
  // --scenarios for an unknown name), before any work. Sets the intra-op
  // threads of this process.
  Sweep(RunConfig config, DistEnv env);

  const RunConfig& config() const { return config_; }
  // Whether this process writes the report (not ranks > 0 of an outside launcher).
  bool reports() const { return !(env_.launched && env_.rank != 0); }
  int threads() const { return threads_; }
  int rows() const { return static_cast<int>(selected_.size()); }  // the rows run() runs
  const DistEnv& env() const { return env_; }

  // Called after every row with the results so far, in the order asked for,
  // and what the sweep measured about the machine (keys for
  // report.environment: peak_matmul_tflops, warmup), so a crash later never
  // loses a finished row.
  using RowDone = std::function<void(const std::vector<ScenarioResult>&, const nlohmann::json& environment)>;
  // Runs every row. Returns the results in the order asked for.
  std::vector<ScenarioResult> run(const Workload& workload, const std::string& out_dir,
                                  const std::vector<LoopCallback*>& callbacks, const RowDone& row_done);

  // Exit code after run(): 0, 1 when a row failed, 128 + signal when a
  // SIGINT/SIGTERM stopped the sweep (core/base/interrupt.h): run() then
  // returned the finished rows and the interrupted one (failed, reason
  // "interrupted"), after handing them to row_done.
  int exit_code() const { return interrupted_ ? 128 + interrupted_ : any_failed_ ? 1 : 0; }

 private:
  struct Rows;
  void measure_peaks();
  void warm_up_rows(const Workload& workload);
  // run()'s steps: the checks, peaks, warm-up and loader before any row; the
  // rounds' order seed (recorded); the phases of rows; one round's order
  // (recorded); one row in one round; the peak again after the rows.
  void prepare(const Workload& workload);
  uint64_t record_round_orders();
  std::vector<std::vector<const ScenarioInfo*>> phases() const;
  std::vector<const ScenarioInfo*> round_order(const std::vector<const ScenarioInfo*>& phase, int round,
                                               uint64_t order_seed);
  void run_row(const ScenarioInfo& info, int round, const Workload& workload, const std::string& out_dir,
               const std::vector<LoopCallback*>& callbacks, const RowDone& row_done, Rows& rows);
  void check_peak_after(const RowDone& row_done, const Rows& rows);
  // config.profile > 0: each ok row's untimed profiling pass, after every
  // round (scenarios/profile_pass.h).
  void profile_rows(const Workload& workload, const std::string& out_dir, const RowDone& row_done, Rows& rows);

  RunConfig config_;
  DistEnv env_;
  torch::Device device_;
  std::vector<const ScenarioInfo*> selected_;
  int total_threads_ = 1, rank_threads_ = 1, threads_ = 1;
  std::map<Precision, double> peaks_;
  nlohmann::json environment_ = nlohmann::json::object();
  bool any_failed_ = false;
  int interrupted_ = 0;  // the signal that stopped the sweep
};

// The matmul peaks of `device` by precision (fp32 everywhere; bf16 and fp16
// on CUDA), measured, never guessed.
std::map<Precision, double> measure_matmul_peaks(const torch::Device& device, int64_t* size_used = nullptr);

// The warm-up pass for one row's device and precision, as a JSON record
// {"device", "precision", "seconds"}; a rank calls it before its timed row
// (parallel/rank_protocol.cpp), the sweep before the first single-process row.
nlohmann::json warm_up_record(const Workload& w, const RunConfig& c, const torch::Device& device, Precision p);

}  // namespace ftb
