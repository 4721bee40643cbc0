#include "reports/analysis/environment_facts.h"

#include <algorithm>
#include <set>

#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

const json* at_pointer(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  return j.contains(p) ? &j.at(p) : nullptr;
}

json value_at(const json& j, const char* pointer) {
  const json* v = at_pointer(j, pointer);
  return v ? *v : json(nullptr);
}

// A fact at a JSON pointer into the environment, named by its dotted path.
EnvironmentFact at(const char* label, const char* group, bool speed, const char* pointer) {
  return {label, group, speed, [pointer](const RunFacts& r, const EmitFact& emit) {
            std::string key = std::string(pointer).substr(1);
            std::replace(key.begin(), key.end(), '/', '.');
            emit(key, value_at(r.environment.facts(), pointer));
          }};
}

// Every key of an object in the environment (cpu.isa's flags): a key one run
// lacks is not recorded there.
EnvironmentFact each_key(const char* label, const char* group, const char* pointer, const char* prefix) {
  return {label, group, true, [pointer, prefix](const RunFacts& r, const EmitFact& emit) {
            const json* o = at_pointer(r.environment.facts(), pointer);
            if (!o || !o->is_object()) return;
            for (const auto& [k, v] : o->items()) emit(std::string(prefix) + k, v);
          }};
}

// One value per GPU (NVML's, or the CUDA properties'), joined in index order
// as text; null where a GPU lacks it or there are none.
EnvironmentFact per_gpu(const char* label, const char* group, const char* list, const char* field, const char* key) {
  return {label, group, true, [list, field, key](const RunFacts& r, const EmitFact& emit) {
            const json* gpus = at_pointer(r.environment.facts(), list);
            if (!gpus || !gpus->is_array() || gpus->empty()) return emit(key, nullptr);
            std::string joined;
            for (const auto& g : *gpus) {
              const json* v = g.is_object() ? at_pointer(g, field) : nullptr;
              const auto t = v ? fact_text(*v) : std::nullopt;
              if (!t) return emit(key, nullptr);
              joined += (joined.empty() ? "" : ", ") + *t;
            }
            emit(key, joined);
          }};
}

// Recorded on every report (an empty list on a CPU machine): names with counts.
void read_gpus(const RunFacts& r, const EmitFact& emit) {
  const json* gpus = r.environment.find("gpus");
  if (!gpus || !gpus->is_array()) return emit("gpus.name", nullptr);
  const std::string names = gpu_summary(r.environment);
  emit("gpus.name", names.empty() ? "none" : names);
}

// Older reports have it inside os ("Linux 6.18.44-fc-v657 x86_64").
void read_kernel(const RunFacts& r, const EmitFact& emit) {
  if (const json* k = r.environment.find("kernel")) return emit("kernel", *k);
  const json* os = r.environment.find("os");
  json release = nullptr;
  if (os && os->is_string()) {
    const std::string s = os->get<std::string>();
    const auto a = s.find(' ');
    if (a != std::string::npos) release = s.substr(a + 1, s.find(' ', a + 1) - a - 1);
  }
  emit("kernel", release);
}

// A watched name that is not set reads "not set"; where the report does not
// say which names it watched, only the set ones are known.
void read_env_vars(const RunFacts& r, const EmitFact& emit) {
  const json* set = r.environment.find("env_vars");
  const json* watched = r.environment.find("env_vars_watched");
  std::set<std::string> names;
  if (set && set->is_object())
    for (const auto& [k, v] : set->items()) names.insert(k);
  if (watched && watched->is_array())
    for (const auto& n : *watched)
      if (n.is_string()) names.insert(n.get<std::string>());
  for (const auto& n : names) {
    const bool is_set = set && set->is_object() && set->contains(n);
    emit("env_vars." + n, is_set ? set->at(n) : json("not set"));
  }
}

}  // namespace

RunFacts run_facts(const Environment& environment, const json& config) {
  RunFacts r;
  r.environment = environment;
  r.data_hash = config.is_object() ? value_at(config, "/workload/data_hash") : json(nullptr);
  return r;
}

std::optional<std::string> fact_text(const json& v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "yes" : "no");
  if (v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : json_text(x));
    return s.empty() ? std::string("none") : s;
  }
  return json_text(v);
}

json fact_value(const EnvironmentFact& f, const RunFacts& run) {
  std::vector<std::pair<std::string, json>> values;
  f.read(run, [&](const std::string& key, json value) { values.emplace_back(key, std::move(value)); });
  if (values.empty()) return nullptr;
  if (values.size() == 1) return values.front().second;
  json o = json::object();
  for (auto& [k, v] : values) o[k] = std::move(v);
  return o;
}

const std::vector<EnvironmentFact>& environment_facts() {
  static const std::vector<EnvironmentFact> facts = {
      at("CPU vendor", "processor", true, "/cpu/vendor"),
      at("CPU family", "processor", true, "/cpu/family"),
      at("CPU model number", "processor", true, "/cpu/model_number"),
      at("CPU stepping", "processor", true, "/cpu/stepping"),
      at("CPU model", "processor", true, "/cpu/model"),
      each_key("CPU instruction sets", "processor", "/cpu/isa", "cpu.isa."),
      at("ATen CPU capability", "processor", true, "/libtorch/cpu_capability"),
      {"GPUs", "processor", true, read_gpus},
      per_gpu("GPU compute capability", "processor", "/gpus", "/capability", "gpus.capability"),
      at("CPU microcode", "processor", true, "/cpu/microcode"),
      at("available cores", "compute", true, "/cpu/available_cores"),
      at("logical cores", "compute", true, "/cpu/logical_cores"),
      at("physical cores", "compute", false, "/cpu/physical_cores"),
      at("intra-op threads", "compute", true, "/threads/intra_op"),
      at("inter-op threads", "compute", true, "/threads/inter_op"),
      at("LibTorch", "libraries", true, "/libtorch/version"),
      at("CUDA", "libraries", true, "/libtorch/cuda"),
      at("cuDNN", "libraries", true, "/libtorch/cudnn"),
      at("NCCL", "libraries", true, "/libtorch/nccl"),
      at("MKL", "libraries", true, "/libtorch/mkl"),
      at("oneDNN", "libraries", true, "/libtorch/onednn"),
      at("BLAS", "libraries", true, "/blas"),
      at("attention implementation", "libraries", true, "/attn_implementation"),
      at("build type", "libraries", true, "/build_type"),
      at("compiler", "libraries", true, "/compiler"),
      at("NVIDIA driver version", "driver", true, "/driver_version"),
      at("driver", "driver", true, "/cuda_driver"),
      {"kernel release", "kernel", true, read_kernel},
      at("CPU frequency governor", "frequency", true, "/cpu/frequency_governor"),
      at("CPU frequency driver", "frequency", true, "/cpu/frequency_driver"),
      per_gpu("GPU max SM clock MHz (NVML)", "frequency", "/nvml/gpus", "/clocks_max_mhz/sm",
              "nvml.gpus.clocks_max_mhz.sm"),
      per_gpu("GPU max memory clock MHz (NVML)", "frequency", "/nvml/gpus", "/clocks_max_mhz/memory",
              "nvml.gpus.clocks_max_mhz.memory"),
      per_gpu("GPU power limit W (NVML)", "frequency", "/nvml/gpus", "/power_limit_w", "nvml.gpus.power_limit_w"),
      {"watched environment variables", "settings", true, read_env_vars},
      at("malloc (core/base/allocator.h)", "settings", true, "/allocator/malloc"),
      at("glibc tunables", "settings", true, "/allocator/glibc_tunables"),
      at("malloc mmap threshold", "settings", false, "/allocator/mmap_threshold"),
      at("data loader prefetch", "settings", false, "/loader/prefetch"),
      {"data (content hash)", "data", true,
       [](const RunFacts& r, const EmitFact& emit) { emit("config.workload.data_hash", r.data_hash); }},
      at("git commit", "ftbench", true, "/git_commit"),
      at("git tree (dirty?)", "ftbench", true, "/git_tree"),
      at("memory bytes", "machine", false, "/memory_bytes"),
      at("host", "machine", false, "/host"),
      at("OS", "machine", false, "/os"),
      at("distro", "machine", false, "/distro"),
      at("fp32 matmul peak TFLOP/s (measured)", "measured", false, "/peak_matmul_tflops/by_precision/fp32"),
      at("bf16 matmul peak TFLOP/s (measured)", "measured", false, "/peak_matmul_tflops/by_precision/bf16"),
      at("fp16 matmul peak TFLOP/s (measured)", "measured", false, "/peak_matmul_tflops/by_precision/fp16"),
  };
  return facts;
}

}  // namespace ftb
