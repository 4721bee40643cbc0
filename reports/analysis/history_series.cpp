// A history's series: which machine, preset and config a report belongs to
// (machine_key, run_key, the config hash and what it leaves out), the
// report's own hash, and the check that its measurements can be judged.
#include "reports/analysis/history.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/fnv_hash.h"
#include "core/base/json_fields.h"
#include "core/base/json_text.h"
#include "reports/analysis/run_differences.h"

namespace ftb {

using nlohmann::json;

std::string machine_key(const Environment& environment) {
  JsonFields env(environment.facts(), "environment");  // InputError naming a missing host or CPU model
  std::string key = env.string("host") + " | " + env.object("cpu").string("model");
  if (const std::string gpus = gpu_summary(environment); !gpus.empty()) key += " | " + gpus;  // "2x NVIDIA H200"
  return key;
}

json hashed_config(const json& config) {
  json c = identity_config(config);  // run_differences.h: compare's rule for "the same configuration"
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

}  // namespace ftb
