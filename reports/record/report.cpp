#include "reports/record/report.h"

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "core/base/files.h"
#include "core/base/text_format.h"
#include "reports/record/report_upgrade.h"
#include "reports/record/report_values.h"
#include "core/base/json_text.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ftb {

using nlohmann::json;

const nlohmann::json* config_value_before_key(const std::string& key) {
  static const std::map<std::string, nlohmann::json> before = {
      {"accumulate", 1}, {"train_seed", 0}, {"seed_per_repeat", "off"}};
  const auto it = before.find(key);
  return it == before.end() ? nullptr : &it->second;
}

const ScenarioResult* find_result(const Report& report, const std::string& scenario) {
  for (const auto& r : report.results)
    if (r.scenario == scenario) return &r;
  return nullptr;
}

Report report_from_json(const json& input, const std::string& where) {
  Report report;
  try {
    const json j = upgrade_report(input);  // one version from here on; InputError for unknown ones
    JsonFields f(j, "");
    f.object("environment");
    f.object("config");
    report.environment = Environment(f.at("environment"));
    report.config = f.at("config");
    if (f.has("run_noise")) {
      f.object("run_noise");
      report.run_noise = f.at("run_noise");
    }
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

namespace {

// steps.csv's fields: plain comma-separated (ftbench writes no quotes), a
// trailing comma an empty last field.
std::vector<std::string> csv_fields(const std::string& l) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream row(l);
  while (std::getline(row, cell, ',')) cells.push_back(cell);
  if (!l.empty() && l.back() == ',') cells.emplace_back();
  return cells;
}

// One data line of steps.csv, its fields read as numbers; errors name the
// file, the line and the column.
struct StepsLine {
  const std::string& path;
  const std::vector<std::string>& header;
  std::vector<std::string> cells;
  std::string where;

  double number(int c) const {
    if (c < 0) return 0;
    try {
      size_t used = 0;
      const double v = std::stod(cells[c], &used);
      if (used == cells[c].size()) return v;
    } catch (const std::exception&) {
      // "nan" and "inf" are read by stod; anything else is an error below
    }
    input_error(path, where + ": column '" + header[c] + "' is not a number: '" + cells[c] + "'");
  }
  // Counts: whole numbers in int64_t's range (a cast of 1e30 or nan is
  // undefined behaviour; found by tests/fuzz).
  int64_t count(int c) const {
    const double v = number(c);
    if (!(v >= -9.2e18 && v <= 9.2e18) || v != std::trunc(v))
      input_error(path, where + ": column '" + header[c] + "' is not a whole number: '" + cells[c] + "'");
    return static_cast<int64_t>(v);
  }
};

}  // namespace

void read_steps_csv(const std::string& path, std::vector<ScenarioResult>& results) {
  std::istringstream in(read_text_file(path));
  std::string line;
  if (!std::getline(in, line)) input_error(path, "empty file, expected a steps.csv header");
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name, bool required) -> int {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    if (required) input_error(path, "line 1: no column '" + name + "' in the header");
    return -1;
  };
  const int c_scenario = column("scenario", true), c_step = column("step", true), c_epoch = column("epoch", true),
            c_ms = column("step_ms", true), c_loss = column("loss", true), c_wait = column("wait_ms", false),
            c_samples = column("samples", true), c_tokens = column("tokens", false), c_seq = column("seq_len", false);
  std::map<std::string, ScenarioResult*> by_name;
  for (auto& r : results) {
    r.steps.clear();
    by_name[r.scenario] = &r;
  }
  for (size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const StepsLine l{path, header, csv_fields(line), "line " + std::to_string(n)};
    if (l.cells.size() != header.size())
      input_error(path, l.where + ": " + std::to_string(l.cells.size()) + " fields, the header has " +
                            std::to_string(header.size()));
    auto it = by_name.find(l.cells[c_scenario]);
    if (it == by_name.end()) continue;
    StepRecord s;
    s.step = l.count(c_step);
    s.epoch = l.count(c_epoch);
    s.step_ms = l.number(c_ms);
    s.loss = l.number(c_loss);
    s.wait_ms = l.number(c_wait);
    s.samples = l.count(c_samples);
    s.tokens = l.count(c_tokens);
    s.seq_len = l.count(c_seq);
    it->second->steps.push_back(s);
  }
}

}  // namespace ftb