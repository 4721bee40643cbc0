#include "reports/report.h"

#include "core/text/errors.h"
#include "core/text/json_fields.h"
#include "core/text/files.h"
#include "core/text/text_format.h"
#include "reports/intervals.h"
#include "reports/report_upgrade.h"
#include "reports/report_values.h"
#include "reports/table.h"
#include "reports/vega.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ftb {

using nlohmann::json;

namespace {

// The report must be written even when a scenario's error text carries bytes
// that are not UTF-8 (a torch message quoting a file name): replace, not throw.
std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

}  // namespace

const ScenarioResult* find_result(const Report& report, const std::string& scenario) {
  for (const auto& r : report.results)
    if (r.scenario == scenario) return &r;
  return nullptr;
}

json report_to_json(const Report& report, const std::string& baseline) {
  json results = json::array();
  for (const auto& r : report.results) {
    json j = to_json(r);
    // Derived from the samples (recomputed on every write, never read back).
    if (r.status == Status::ok && !r.repeats.empty()) {
      j["intervals"] = result_intervals(r);
      if (auto g = accuracy_guard(report, r, baseline))
        j["accuracy_guard"] = {{"baseline", baseline},
                               {"delta_points", g->delta_points},
                               {"tolerance_points", g->tolerance_points},
                               {"within", g->within}};
      if (auto s = speedups_vs(report, r, baseline))
        j["speedup"] = {{"baseline", baseline},
                        {"end_to_end", to_json(s->end_to_end)},
                        {"end_to_end_from", s->by_throughput ? "samples/s (different sample counts)" : "wall time"},
                        {"steady_state", to_json(s->steady_state)},
                        {"method", std::string("ratio of medians over repeats, 95 % percentile bootstrap (4000 "
                                               "resamples, ") +
                                       (s->paired ? "paired by round: the rows' i-th repeats ran back to back)"
                                                  : "unpaired)")}};
    }
    results.push_back(std::move(j));
  }
  return {{"schema", kReportSchema},
          {"environment", report.environment},
          {"config", report.config},
          {"results", std::move(results)}};
}

Report report_from_json(const json& input, const std::string& where) {
  Report report;
  try {
    const json j = upgrade_report(input);  // one version from here on; InputError for unknown ones
    JsonFields f(j, "");
    f.object("environment");
    f.object("config");
    report.environment = f.at("environment");
    report.config = f.at("config");
    const json& results = f.array("results");
    for (size_t i = 0; i < results.size(); ++i) report.results.push_back(result_from_json(results[i], indexed("results", i)));
    check_measurements(results);
  } catch (const InputError& e) {
    input_error(where, e.what());
  } catch (const json::exception& e) {
    input_error(where, json_message(e));
  }
  return report;
}

Report read_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open: ") + std::strerror(errno));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    input_error(path, "not valid JSON: " + json_message(e));
  }
  return report_from_json(j, path);
}

void write_report(const std::string& path, const Report& report) {
  write_file_atomic(path, dump(report_to_json(report)));
}

std::string steps_csv(const std::vector<ScenarioResult>& results) {
  std::string out = "scenario,step,epoch,step_ms,loss,wait_ms,samples,tokens,seq_len\n";
  for (const auto& r : results) {
    const std::string name = csv_field(r.scenario);
    for (const auto& s : r.steps) {
      out += name;
      out += ',' + std::to_string(s.step) + ',' + std::to_string(s.epoch);
      out += ',' + shortest_double(s.step_ms) + ',' + shortest_double(s.loss) + ',' + shortest_double(s.wait_ms);
      out += ',' + std::to_string(s.samples) + ',' + std::to_string(s.tokens);
      out += ',' + std::to_string(s.seq_len) + '\n';
    }
  }
  return out;
}

void write_steps_csv(const std::string& path, const std::vector<ScenarioResult>& results) {
  write_file_atomic(path, steps_csv(results));
}

void write_run_outputs(const std::string& dir, const Report& report) {
  const std::string root = dir.empty() ? "." : dir;
  make_directories(root + "/charts");
  for (const auto& [name, spec] : vega_specs(report)) {
    write_file_atomic(root + "/charts/" + name + ".vl.json", dump(spec));
  }
  write_file_atomic(root + "/table.md", speedup_table_markdown(report));
  write_steps_csv(root + "/steps.csv", report.results);
  // Last, so that a report.json beside the other files means they are complete.
  write_report(root + "/report.json", report);
}

}  // namespace ftb