// What `run` and `calibrate` share: the flags that make a RunConfig (preset,
// scenarios, device, key=value overrides...) and one sweep that writes its
// report folder after every row.
#pragma once

#include <CLI/CLI.hpp>

#include <limits>
#include <string>
#include <vector>

#include "core/train/run_config.h"
#include "reports/record/report.h"

namespace ftb {

inline constexpr int kUnsetFlag = std::numeric_limits<int>::min();  // a flag not given

struct RunArgs {
  std::string preset = "quick";
  std::string scenarios, model, data, device;
  int repeats = 0;
  int world_size = kUnsetFlag;
  bool profile = false;  // --profile: profile=5 unless an override sets it
  std::vector<std::string> overrides;
};

// Every flag of RunArgs (not --out: each command says what its folder holds).
void add_run_flags(CLI::App* sub, RunArgs& args);

// The flags as a command line that gives the same RunArgs (calibrate passes
// them to each run's own process).
std::vector<std::string> run_flag_args(const RunArgs& args);

// Flags are shorthands for keys; key=value overrides come last. Validated.
RunConfig resolve_config(const RunArgs& args);

// One sweep of `config`: checks `out` first, runs every row, writes
// out/report.json (table, steps, charts) after each, and fills `report`.
// In a rank started by the launcher it runs that rank's row and returns.
struct SweepOutcome {
  int exit_code = 0;    // 1 when a row failed, 130/143 when SIGINT/SIGTERM stopped it
  bool wrote = false;   // false in a rank that does not write the report, or interrupted before the first row
  // The folder's table.md and chart specs are the final report's (written
  // with its last rows), so the views need not write them again.
  bool outputs_current = false;
};
// run_noise: a calibrate file's JSON for the speed-up intervals (Report::run_noise; null = none).
SweepOutcome run_and_write(const RunConfig& config, const std::string& out, Report& report,
                           const nlohmann::json& run_noise = nullptr);

}  // namespace ftb
