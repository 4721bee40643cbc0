// What differs between two runs' setups: the config keys that change what a
// row measures (compare refuses reports that differ in them, history starts
// a new series), and the machine facts a reader checks first. Pure functions
// of the reports' JSON; compare and regress read them alike.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

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

// Keys that do not change what a row measures, so reports that differ in them
// are comparable: where the files went (out), how many repeats and which rows
// ran (repeats, scenarios: compare takes the rows both have, and the
// statistics account for n), input paths (model_dir, data, vocab: what was
// loaded is compared through workload.*), the time data preparation took
// (workload.prep_time_s), whether rows were profiled (profile: an untimed
// pass after the timed repeats) and the device index (config.device is compared as
// cpu / cuda / auto: cuda:0 and cuda:1 are the same kind of device). Where
// both record workload.data_hash (the data's content), the data's path
// (workload.data_source) is not compared: the hash is.
extern const std::vector<std::string> kRunIrrelevantConfigKeys;
ConfigCheck check_configs(const nlohmann::json& reference, const nlohmann::json& other);
std::string describe(const KeyDifference& d);  // "preset ('smoke' vs 'mfu')"

struct EnvironmentDiff {
  std::vector<KeyDifference> differences;  // keys of the list below whose values differ
  std::vector<std::string> same;           // labels of those that agree
  std::vector<std::string> unrecorded;     // labels neither report records
};
// GPU names, driver, GPU clocks and power limits (NVML, where recorded),
// CUDA, cuDNN, NCCL, LibTorch, CPU model and cores, threads, compiler, build
// type, git commit and tree state (dirty), host, OS, BLAS, memory, and the
// measured matmul peaks (fp32, bf16, fp16: what the machine really delivers).
// Absent keys read as "not recorded".
EnvironmentDiff diff_environments(const nlohmann::json& reference, const nlohmann::json& other);

// Keys (dotted paths) whose values differ between two configs as
// config_hash sees them: "lr: 0.001 -> 0.002".
std::vector<std::string> config_differences(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace ftb
