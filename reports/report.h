// The report: one JSON document per run (schema "ftbench.report/1"), the raw
// step times beside it as CSV, and the table and chart specs derived from it.
// Reporters are pure functions of (environment, config, results); only the
// write_* functions touch the file system, and each file is replaced
// atomically (temporary file + rename), so a crash never leaves half a report.
#pragma once

#include "scenarios/scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ftb {

inline constexpr const char* kReportSchema = "ftbench.report/1";

struct Report {
  nlohmann::json environment = nlohmann::json::object();  // capture_environment()
  nlohmann::json config = nlohmann::json::object();       // the resolved RunConfig
  std::vector<ScenarioResult> results;                    // in run order
};

// One result object of report.json. Steps are left out (they go to steps.csv),
// so result_from_json(to_json(r)) equals r except for r.steps.
// Non-finite numbers (a diverged loss) are written as null and read back as NaN.
nlohmann::json to_json(const ScenarioResult& r);
// Throws nlohmann::json::exception naming the missing key or wrong type, or
// InputError for an unknown status; read_report adds the file and index.
ScenarioResult result_from_json(const nlohmann::json& j);

nlohmann::json report_to_json(const Report& report);
// Throws InputError naming `where` (a file name) on a wrong schema or a missing
// or mistyped key.
Report report_from_json(const nlohmann::json& j, const std::string& where);

// Throws InputError naming the file: unreadable, not JSON, wrong schema, missing key.
Report read_report(const std::string& path);

// Atomic writes: the content goes to `path.tmp.<pid>`, is flushed to disk and
// then renamed over `path`. On any failure the temporary file is removed, the
// old `path` (if any) is untouched, and std::runtime_error names the path.
void write_file_atomic(const std::string& path, const std::string& content);
void write_report(const std::string& path, const Report& report);
// Columns: scenario,step,epoch,step_ms,loss,wait_ms,samples,tokens,seq_len (one
// row per recorded step of every result, in report order; seq_len = the padded
// length the device computed on, so FLOPs can be recomputed from the CSV).
std::string steps_csv(const std::vector<ScenarioResult>& results);
void write_steps_csv(const std::string& path, const std::vector<ScenarioResult>& results);

// mkdir -p (POSIX; see report.cpp for why not std::filesystem).
void make_directories(const std::string& dir);

// Creates `dir` (and parents) and writes report.json, steps.csv, table.md and
// charts/<name>.vl.json (see vega.h).
void write_run_outputs(const std::string& dir, const Report& report);

}  // namespace ftb
