// The record: one JSON document per run (schema "ftbench.report/5", described
// by reports/record/report.schema.json; versions 1 and 2 are read by
// upgrading) and the raw step times beside it as CSV. Written by
// reports/analysis/report_json.h (with what is derived from the samples);
// the table and charts by reports/views/.
// Reporters are pure functions of (environment, config, results); only the
// write_* functions touch the file system, and each file is replaced
// atomically (temporary file + rename), so a crash never leaves half a report.
#pragma once

#include "reports/record/environment.h"
#include "reports/record/report_upgrade.h"
#include "scenarios/result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ftb {

inline constexpr const char* kReportSchema = kReportSchemaV5;  // what the writer writes

struct Report {
  Environment environment;                                 // the machine and the run's circumstances
  nlohmann::json config = nlohmann::json::object();       // the resolved RunConfig
  std::vector<ScenarioResult> results;                    // in run order
  // A calibrate noise file (reports/analysis/noise.h) plus "source": its
  // path; the speed-up intervals then carry the run-to-run noise it measured
  // (`--noise`). Null = none: the intervals see this run's repeats only.
  nlohmann::json run_noise;
};

// Config keys added after reports were already being written, each with the
// value every run of an older ftbench had (accumulate, 2026-12: one backward
// a step). A report without such a key ran at that value: compare judges it
// so (a report with accumulate=2 against an older one is a difference, not
// "recorded in one report only") and history leaves the key out of a
// series' hash at that value, so series go on across the version that added
// it. nullptr when `key` (a dotted config path) is not one of them.
const nlohmann::json* config_value_before_key(const std::string& key);

// The result of `scenario` in the report; nullptr when it has none.
const ScenarioResult* find_result(const Report& report, const std::string& scenario);

// Throws InputError naming `where` (a file name) and the JSON path of the key
// on a wrong schema, a missing or mistyped key, or a time, throughput or byte
// count that is NaN or negative. Version 1 reports are upgraded (report_upgrade.h).
Report report_from_json(const nlohmann::json& j, const std::string& where);

// Throws InputError naming the file: unreadable, not JSON, wrong schema, missing key.
Report read_report(const std::string& path);

// Columns: scenario,step,epoch,step_ms,loss,wait_ms,samples,tokens,seq_len (one
// row per recorded step of every result, in report order; seq_len = the padded
// length the device computed on, so FLOPs can be recomputed from the CSV).
std::string steps_csv(const std::vector<ScenarioResult>& results);
void write_steps_csv(const std::string& path, const std::vector<ScenarioResult>& results);
// Fills each result's steps from a steps.csv written by write_steps_csv (rows
// of scenarios the report does not have are ignored; columns found by
// header name, so older files without seq_len read too). InputError naming
// the file and line for a malformed row.
void read_steps_csv(const std::string& path, std::vector<ScenarioResult>& results);

}  // namespace ftb
