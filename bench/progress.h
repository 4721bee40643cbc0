// Progress output for `ftbench run`: a bar with rate and ETA on a terminal,
// plain lines (every 10 % of an epoch) when stderr is not a terminal.
#pragma once

#include <chrono>
#include <string>

#include "core/train/train_loop.h"
#include "scenarios/sweep.h"

namespace ftb {

class ProgressPrinter : public LoopCallback {
 public:
  ProgressPrinter();
  void on_train_start(const LoopState& s) override;
  void on_epoch_start(const LoopState& s) override;
  void on_batch_end(const LoopState& s, const StepRecord& r) override;
  void on_epoch_end(const LoopState& s, const EpochRecord& e) override;

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t start_step_ = 0;
  double ema_loss_ = 0;
};

// The whole suite's progress after a row: "[suite] 7 of 33 row repeats done
// in 2:41, about 8:10 left". What is left is each unfinished row's measured
// seconds a repeat (the rows' mean where a row has not run yet), scaled by
// how much longer the suite's elapsed time is than its repeats' own (setup,
// evaluation, warm-up): an estimate that corrects itself as rows finish.
// `rows`: the rows the sweep will run; `repeats`: repeats a row.
std::string suite_eta_line(const std::vector<ScenarioResult>& results, int rows, int repeats, double elapsed_s);

// Prints rows as an aligned text table (first row = header).
void print_table(const std::vector<std::vector<std::string>>& rows);

// The start-of-run table: every config key with its value and meaning, the
// report folder, the resolved device, threads and rank.
void print_config(const Sweep& sweep, const std::string& out_dir);

}  // namespace ftb
