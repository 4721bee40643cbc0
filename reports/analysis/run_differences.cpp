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

bool irrelevant(const std::string& key) {
  for (const auto& k : kRunIrrelevantConfigKeys)
    if (key == k || key.rfind(k + ".", 0) == 0) return true;
  return false;
}

struct EnvKey {
  const char* label;
  const char* path;
};
// In the order a reader scans a machine: accelerators, software stack, CPU, build.
constexpr EnvKey kEnvironmentKeys[] = {
    {"GPUs", "gpus"},
    {"driver", "cuda_driver"},
    {"CUDA", "libtorch.cuda"},
    {"cuDNN", "libtorch.cudnn"},
    {"NCCL", "libtorch.nccl"},
    {"LibTorch", "libtorch.version"},
    {"CPU model", "cpu.model"},
    {"logical cores", "cpu.logical_cores"},
    {"physical cores", "cpu.physical_cores"},
    {"available cores", "cpu.available_cores"},
    {"intra-op threads", "threads.intra_op"},
    {"inter-op threads", "threads.inter_op"},
    {"data loader prefetch", "loader.prefetch"},
    {"malloc (core/base/allocator.h)", "allocator.malloc"},
    {"malloc mmap threshold", "allocator.mmap_threshold"},
    {"memory bytes", "memory_bytes"},
    {"fp32 matmul peak TFLOP/s (measured)", "peak_matmul_tflops.by_precision.fp32"},
    {"bf16 matmul peak TFLOP/s (measured)", "peak_matmul_tflops.by_precision.bf16"},
    {"fp16 matmul peak TFLOP/s (measured)", "peak_matmul_tflops.by_precision.fp16"},
    {"GPU max SM clock MHz / power limit W (NVML)", "nvml.gpus"},
    {"BLAS", "blas"},
    {"compiler", "compiler"},
    {"build type", "build_type"},
    {"git commit", "git_commit"},
    {"git tree (dirty?)", "git_tree"},
    {"host", "host"},
    {"OS", "os"},
    {"distro", "distro"},
};

// A readable GPU list: names with counts (gpu_summary).
json gpu_names(const json& gpus) {
  if (!gpus.is_array()) return gpus;
  const std::string names = gpu_summary(Environment(json{{"gpus", gpus}}));
  return names.empty() ? json("none") : json(names);
}

// NVML's GPUs as "1980/700, 1980/700" (max SM clock / power limit), what a
// throttled or capped card differs in.
json clocks_and_power(const json& gpus) {
  if (!gpus.is_array()) return gpus;
  std::string out;
  for (const auto& g : gpus) {
    const json* clock = json_at_path(g, "clocks_max_mhz.sm");
    const json* power = json_at_path(g, "power_limit_w");
    out += (out.empty() ? "" : ", ") + (clock && !clock->is_null() ? json_text(*clock) : std::string("?")) + "/" +
           (power && !power->is_null() ? json_text(*power) : std::string("?"));
  }
  return out.empty() ? json(nullptr) : json(out);
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

const std::vector<std::string> kRunIrrelevantConfigKeys = {
    "out", "repeats", "scenarios", "model_dir", "data", "vocab", "workload.prep_time_s", "workload.model_dir",
    "profile"};

ConfigCheck check_configs(const json& reference, const json& other) {
  std::map<std::string, json> a, b;
  flatten(reference, "", a);
  flatten(other, "", b);
  ConfigCheck check;
  // Where both runs record the data's content hash, the data is identified by
  // it: the same reviews under another path are the same data.
  const bool by_content = a.count("workload.data_hash") && b.count("workload.data_hash");
  for (const auto& [key, va] : a) {
    if (irrelevant(key)) continue;
    if (by_content && key == "workload.data_source") continue;
    auto it = b.find(key);
    const json* before = config_value_before_key(key);  // a key an older ftbench ran at one value
    if (it == b.end() && before == nullptr) {
      check.only_one.push_back({key, va, nullptr});
      continue;
    }
    const json& vb = it == b.end() ? *before : it->second;
    const bool same = key == "device" ? device_kind(va) == device_kind(vb) : va == vb;  // 32.0 == 32 in nlohmann
    if (!same) check.differences.push_back({key, va, vb});
  }
  for (const auto& [key, vb] : b) {
    if (irrelevant(key) || a.count(key) || (by_content && key == "workload.data_source")) continue;
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

EnvironmentDiff diff_environments(const json& reference, const json& other) {
  EnvironmentDiff diff;
  for (const auto& k : kEnvironmentKeys) {
    const json* a = json_at_path(reference, k.path);
    const json* b = json_at_path(other, k.path);
    json va = a ? *a : json(nullptr), vb = b ? *b : json(nullptr);
    if (std::string(k.path) == "gpus") {
      va = gpu_names(va);
      vb = gpu_names(vb);
    }
    if (std::string(k.path) == "nvml.gpus") {
      va = clocks_and_power(va);
      vb = clocks_and_power(vb);
    }
    if (va.is_null() && vb.is_null())
      diff.unrecorded.push_back(k.label);
    else if (va == vb)
      diff.same.push_back(k.label);
    else
      diff.differences.push_back({k.label, va, vb});
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
