// A history's series: which machine, preset and config a report belongs to
// (machine_key, run_key, the config hash and what it leaves out), the
// report's own hash, and the check that its measurements can be judged.
#include "reports/analysis/history.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/fnv_hash.h"
#include "core/base/json_fields.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

bool is_bad(double v) { return !std::isfinite(v) || v < 0; }

}  // namespace

std::string machine_key(const Environment& environment) {
  JsonFields env(environment.facts(), "environment");  // InputError naming a missing host or CPU model
  std::string key = env.string("host") + " | " + env.object("cpu").string("model");
  if (const std::string gpus = gpu_summary(environment); !gpus.empty()) key += " | " + gpus;  // "2x NVIDIA H200"
  return key;
}

const std::vector<std::string>& config_keys_ignored() {
  // workload.data_hash (added 2026-12) is left out so that a history's series
  // go on across the ftbench that started recording it; the data's path is
  // still in the hash, and compare checks the content.
  // profile (added 2026-12, issue 29): the profiling pass runs after a row's
  // timed repeats and changes no figure; a series goes on whether a night
  // profiled or not, and across the version that added the key.
  static const std::vector<std::string> keys = {"out", "repeats", "scenarios", "workload.prep_time_s",
                                                "workload.data_hash", "profile"};
  return keys;
}

json hashed_config(const json& config) {
  json c = config;
  for (const auto& key : config_keys_ignored()) {
    json* parent = &c;
    std::string rest = key;
    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
      const std::string head = rest.substr(0, dot);
      if (!parent->is_object() || !parent->contains(head)) {
        parent = nullptr;
        break;
      }
      parent = &(*parent)[head];
    }
    if (parent && parent->is_object()) parent->erase(rest);
  }
  // A key added later (accumulate, issue 28) is hashed where it differs from
  // the value older reports ran at; at that value it is left out, so a series
  // goes on across the version that added the key (report.h).
  for (auto it = c.begin(); it != c.end();) {
    const json* before = config_value_before_key(it.key());
    if (before != nullptr && *before == it.value()) it = c.erase(it);
    else ++it;
  }
  return c;
}

std::string config_hash(const json& config) { return fnv1a64_hex(json_text(hashed_config(config))); }

std::string report_hash(const json& report_json) { return fnv1a64_hex(json_text(report_json)); }

RunKey run_key(const Report& report, const std::string& where, const std::string& machine) {
  try {
    RunKey k;
    k.machine = machine.empty() ? machine_key(report.environment) : machine;
    k.preset = JsonFields(report.config, "config").string("preset");
    k.config_hash = config_hash(report.config);
    return k;
  } catch (const InputError& e) {
    input_error(where, e.what());
  }
}

void check_measurements(const Report& report, const std::string& where) {
  for (size_t i = 0; i < report.results.size(); ++i) {
    const auto& r = report.results[i];
    if (r.status != Status::ok) continue;
    for (size_t k = 0; k < r.repeats.size(); ++k)
      for (Metric m : all_metrics()) {
        const double v = metric_value(r.repeats[k], m);
        if (!is_bad(v)) continue;
        const std::string key = indexed("results", i) + "." + indexed("samples", k) + "." + to_string(m);
        input_error(where, key + (std::isnan(v) ? " is NaN" : " is " + std::to_string(v)) + " (scenario " +
                               r.scenario + "): a time, rate or size must be a finite number >= 0");
      }
  }
}

}  // namespace ftb
