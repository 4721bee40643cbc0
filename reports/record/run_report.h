// One `ftbench run`'s report, assembled here rather than in the command:
// what the run was (the resolved config, the workload it loaded, its
// folder), where it ran (the machine, captured by the process that writes
// the report; ranks launched from outside leave it empty), and, row by row,
// what was measured. The keys are the schema's (report.schema.json); the
// caller hands over the facts it alone can gather (LibTorch is not linked
// here).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/record/report.h"

namespace ftb {

struct RunStart {
  nlohmann::json config;       // to_json(RunConfig)
  nlohmann::json workload;     // Workload::describe()
  std::string out;             // the report folder
  nlohmann::json environment;  // capture_environment(), or null where this process does not report
  std::string command_line;    // what was typed
  nlohmann::json allocator;    // apply_malloc_mode's record
  nlohmann::json run_noise;    // --noise (noise.h's run_noise_json), or null
};

// The report before its first row: config.workload and config.out set, the
// environment with command_line and allocator (where there is one).
Report begin_run_report(const RunStart& facts);

// After each row: the rows so far, and what the sweep measured about the
// machine on the way (matmul peaks, NVML), merged into the environment.
void record_rows(Report& report, const std::vector<ScenarioResult>& results, const nlohmann::json& measured);

}  // namespace ftb
