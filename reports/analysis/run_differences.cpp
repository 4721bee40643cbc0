#include "reports/analysis/run_differences.h"

#include <algorithm>

#include "core/base/json_path.h"
#include "core/base/json_text.h"
#include "core/base/text_format.h"
#include "reports/analysis/history.h"
#include "reports/record/environment.h"
#include "reports/record/report.h"

namespace ftb {

using nlohmann::json;

namespace {

// Dotted keys of a JSON object, nested objects flattened (arrays are values).
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && !value.empty())
      flatten(value, path, out);
    else
      out[path] = value;
  }
}

}  // namespace

// "cuda:1" -> "cuda": the kind of device, not which one.
json device_kind(const json& v) {
  if (!v.is_string()) return v;
  const std::string s = v.get<std::string>();
  return s.substr(0, s.find(':'));
}

std::map<std::string, json> dotted_values(const json& j) {
  std::map<std::string, json> out;
  flatten(j, "", out);
  return out;
}

std::string value_text(const json& v) {
  if (v.is_null()) return "not recorded";
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  if (v.is_number_float()) return shortest_double(v.get<double>());
  return json_text(v);
}

const std::vector<ConfigKeyRule>& config_key_rules() {
  static const std::vector<ConfigKeyRule> rules = {
      {"out", KeyPolicy::ignored, nullptr},
      {"repeats", KeyPolicy::ignored, nullptr},
      {"scenarios", KeyPolicy::ignored, nullptr},
      {"model_dir", KeyPolicy::ignored, nullptr},
      {"data", KeyPolicy::ignored, nullptr},
      {"vocab", KeyPolicy::ignored, nullptr},
      {"workload.prep_time_s", KeyPolicy::ignored, nullptr},
      {"workload.model_dir", KeyPolicy::ignored, nullptr},
      {"profile", KeyPolicy::ignored, nullptr},
      {"accuracy_min_effect", KeyPolicy::ignored, nullptr},  // the judge's, not the measurement's
      {"workload.test_hash", KeyPolicy::ignored, nullptr},   // the data's, as data_hash is
      {"device", KeyPolicy::by_kind, nullptr},
      {"workload.data_source", KeyPolicy::by_content, "workload.data_hash"},
      // The vocabulary's path: the data hash covers the token ids it made.
      {"workload.vocab_source", KeyPolicy::by_content, "workload.data_hash"},
      {"workload.vocab.path", KeyPolicy::by_content, "workload.data_hash"},
  };
  return rules;
}

const std::vector<std::string>& run_irrelevant_config_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& r : config_key_rules())
      if (r.policy == KeyPolicy::ignored) out.push_back(r.key);
    return out;
  }();
  return keys;
}

json identity_config(const json& config, bool content_known) {
  json c = config;
  for (const auto& r : config_key_rules()) {
    json* node = c.is_object() ? &c : nullptr;
    json* parent = nullptr;
    std::string leaf;
    for (std::string rest = r.key; node != nullptr;) {
      const size_t dot = rest.find('.');
      leaf = rest.substr(0, dot);
      parent = node;
      node = node->is_object() && node->contains(leaf) ? &(*node)[leaf] : nullptr;
      if (dot == std::string::npos) break;
      rest = rest.substr(dot + 1);
    }
    if (node == nullptr) continue;
    if (r.policy == KeyPolicy::by_kind) *node = device_kind(*node);
    else if (r.policy == KeyPolicy::ignored || (content_known && json_at_path(c, r.content_key) != nullptr))
      parent->erase(leaf);
  }
  return c;
}

ConfigCheck check_configs(const json& reference, const json& other) {
  std::map<std::string, json> a, b;
  // Content stands for a path only where both runs record it: against an
  // older report the path is all there is.
  bool content_known = true;
  for (const auto& r : config_key_rules())
    if (r.policy == KeyPolicy::by_content)
      content_known = content_known && json_at_path(reference, r.content_key) && json_at_path(other, r.content_key);
  flatten(identity_config(reference, content_known), "", a);
  flatten(identity_config(other, content_known), "", b);
  ConfigCheck check;
  for (const auto& [key, va] : a) {
    auto it = b.find(key);
    const json* before = config_value_before_key(key);  // a key an older ftbench ran at one value
    if (it == b.end() && before == nullptr) {
      check.only_one.push_back({key, va, nullptr});
      continue;
    }
    const json& vb = it == b.end() ? *before : it->second;
    if (va != vb) check.differences.push_back({key, va, vb});  // 32.0 == 32 in nlohmann
  }
  for (const auto& [key, vb] : b) {
    if (a.count(key)) continue;
    if (const json* before = config_value_before_key(key)) {
      if (*before != vb) check.differences.push_back({key, *before, vb});
    } else {
      check.only_one.push_back({key, nullptr, vb});
    }
  }
  // The preset first: it explains most of the others.
  std::stable_partition(check.differences.begin(), check.differences.end(),
                        [](const KeyDifference& d) { return d.key == "preset"; });
  return check;
}

std::string describe(const KeyDifference& d) {
  return d.key + " (" + value_text(d.reference) + " vs " + value_text(d.other) + ")";
}

EnvironmentDiff diff_environments(const RunFacts& reference, const RunFacts& other) {
  EnvironmentDiff diff;
  for (const auto& f : environment_facts()) {
    const json va = fact_value(f, reference), vb = fact_value(f, other);
    if (va.is_null() && vb.is_null())
      diff.unrecorded.push_back(f.label);
    else if (va == vb)
      diff.same.push_back(f.label);
    else
      diff.differences.push_back({f.label, va, vb});
  }
  return diff;
}

// Both sides through history's config hash: what makes two runs two series.
std::vector<std::string> config_differences(const json& from, const json& to) {
  const auto a = dotted_values(hashed_config(from)), b = dotted_values(hashed_config(to));
  std::vector<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) out.push_back(k + ": " + json_text(v) + " -> (missing)");
    else if (it->second != v) out.push_back(k + ": " + json_text(v) + " -> " + json_text(it->second));
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) out.push_back(k + ": (missing) -> " + json_text(v));
  return out;
}

}  // namespace ftb
