// What differs between two runs' setups: the config keys that change what a
// row measures (compare refuses reports that differ in them, history starts
// a new series), and the machine facts a reader checks first. Pure functions
// of the reports' JSON; compare and regress read them alike.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "reports/analysis/environment_facts.h"

namespace ftb {

// Dotted keys of a JSON object, nested objects flattened (arrays and empty
// objects are values): {"a": {"b": 1}} -> {"a.b": 1}.
std::map<std::string, nlohmann::json> dotted_values(const nlohmann::json& j);

// "cuda:1" -> "cuda": the kind of device, not which one.
nlohmann::json device_kind(const nlohmann::json& v);

// A value for a reader: 'text' quoted, numbers shortest, "not recorded" for null.
std::string value_text(const nlohmann::json& v);

// One config key that differs, or that only one report records.
struct KeyDifference {
  std::string key;  // dotted path: "max_steps", "workload.train_examples"
  nlohmann::json reference, other;  // null when absent from that side
};

struct ConfigCheck {
  std::vector<KeyDifference> differences;  // run-relevant keys both record, with different values
  std::vector<KeyDifference> only_one;     // keys one report does not record (an older ftbench): not compared
  bool comparable() const { return differences.empty(); }
};

// What makes two runs the same configuration, once: a policy per config key
// (dotted path; a key covers its children), read by compare's refusal
// (check_configs) and history's series key (hashed_config in history.h).
// Keys not listed are compared by value.
enum class KeyPolicy {
  ignored,     // does not change what a row measures
  by_kind,     // compared as its kind: "cuda:1" is "cuda"
  by_content,  // a path stood for by the content hash next to it, where the report records one
};
struct ConfigKeyRule {
  const char* key;
  KeyPolicy policy;
  const char* content_key;  // by_content: the hash that stands for it
};
// Ignored: where the files went (out), how many repeats and which rows ran
// (repeats, scenarios: compare takes the rows both have, and the statistics
// account for n), input paths (model_dir, data, vocab: what was loaded is
// compared through workload.*), the time data preparation took
// (workload.prep_time_s) and whether rows were profiled (profile: an
// untimed pass after the timed repeats). By kind: the device (cuda:0 and
// cuda:1 are the same kind of device; the machine key names the GPUs). By
// content: the data's and the vocabulary's paths (workload.data_source,
// workload.vocab_source, workload.vocab.path) where the report records
// workload.data_hash (the token ids the vocabulary made): the same reviews
// under another path are the same data. Pretrained weights are compared by
// workload.weights_hash (a value like any other), model_dir's path not.
const std::vector<ConfigKeyRule>& config_key_rules();
// The ignored keys, in the table's order (compare's output lists them).
const std::vector<std::string>& run_irrelevant_config_keys();
// A config as both judges see it: ignored keys removed, by_kind keys as
// their kind, by_content paths left to their hash where it is recorded
// (content_known: compare passes false where one of its two runs lacks the
// hash, so that the paths are compared; history, one run at a time, true).
nlohmann::json identity_config(const nlohmann::json& config, bool content_known = true);
ConfigCheck check_configs(const nlohmann::json& reference, const nlohmann::json& other);
std::string describe(const KeyDifference& d);  // "preset ('smoke' vs 'mfu')"

struct EnvironmentDiff {
  std::vector<KeyDifference> differences;  // keys of the list below whose values differ
  std::vector<std::string> same;           // labels of those that agree
  std::vector<std::string> unrecorded;     // labels neither report records
};
// Every fact of environment_facts.h's table (the one suspects reads too),
// labelled, in its order: a fact of several keys (the ISA flags, the watched
// variables) compared as one object. Absent keys read as "not recorded".
EnvironmentDiff diff_environments(const RunFacts& reference, const RunFacts& other);

// Keys (dotted paths) whose values differ between two configs as
// config_hash sees them: "lr: 0.001 -> 0.002".
std::vector<std::string> config_differences(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace ftb
