#include "core/measure/environment.h"
#include "core/base/text_format.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>
#include <torch/version.h>

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/nccl.h>
#endif

#include <algorithm>
#include <array>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>
#include <string>
#include <utility>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/base/host_name.h"
#include "core/model/attention.h"
#include "core/measure/build_info.h"
#include "core/measure/nvml.h"
#include "core/measure/nvtx_range.h"

#ifdef FTB_WITH_CUDA
#define FTB_BUILT_WITH_CUDA 1
#else
#define FTB_BUILT_WITH_CUDA 0
#endif
#ifndef FTB_WITH_NCCL
#define FTB_WITH_NCCL 0
#endif

namespace ftb {

using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// The instruction sets that decide which kernel runs (oneDNN and ATen pick
// AMX, AVX-512 BF16/VNNI, AVX-512 or AVX2 code by them), by their
// /proc/cpuinfo flag names; ARM's "Features" names for the same purpose.
const std::vector<std::string>& decisive_isa() {
  static const std::vector<std::string> flags = {"avx2",       "avx512f",    "avx512_bf16", "avx512_vnni",
                                                 "avx512_fp16", "amx_tile",  "amx_bf16",    "amx_int8",
                                                 "asimd",      "sve",        "sve2",        "bf16"};
  return flags;
}

json number_or_text(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) return std::stoll(v);
  return v;
}

// The first line of a sysfs file, or "not exposed" (VMs and containers
// often have no cpufreq).
std::string sysfs_or_not_exposed(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || trim(line).empty()) return "not exposed";
  return trim(line);
}

json os_release_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  }
  return nullptr;
}

// The value of `key=` in at::show_config()'s "Build settings" line.
json show_config_value(const std::string& config, const std::string& key) {
  const auto at = config.find(key + "=");
  if (at == std::string::npos) return nullptr;
  const auto begin = at + key.size() + 1;
  const auto end = config.find_first_of(",\n", begin);
  return trim(config.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}


// The variables that change threads, kernels, allocators or communication;
// recorded when set, and the list itself as env_vars_watched, so a reader
// tells "not set" from "not looked at" (older reports watched fewer).
const std::vector<const char*>& watched_env_vars() {
  static const std::vector<const char*> names = {
      "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY",
      "KMP_BLOCKTIME", "ATEN_CPU_CAPABILITY", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS",
      "MKL_CBWR", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "LD_PRELOAD",
      "CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "CUBLAS_WORKSPACE_CONFIG", "NCCL_ALGO", "NCCL_PROTO",
      "TORCH_NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_BLOCKING_WAIT", "TORCH_NCCL_ENABLE_MONITORING",
      "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", "TORCH_NCCL_DUMP_ON_TIMEOUT", "NVIDIA_TF32_OVERRIDE",
      "FTB_TEST_SLOWDOWN"};
  return names;
}

json env_vars() {
  json vars = json::object();
  for (const char* name : watched_env_vars()) {
    if (const char* v = std::getenv(name)) vars[name] = v;
  }
  return vars;
}

// "CPU capability usage: AVX512" in at::show_config(): the ISA ATen's own
// CPU kernels were dispatched to (ATEN_CPU_CAPABILITY can lower it).
json show_config_line(const std::string& config, const std::string& prefix) {
  const auto at = config.find(prefix);
  if (at == std::string::npos) return nullptr;
  const auto begin = at + prefix.size();
  return trim(config.substr(begin, config.find('\n', begin) - begin));
}

// The version after `marker` up to the next space or dash: "MKL-DNN v3.10.2 (Git..." -> "3.10.2",
// "Library Version 2024.2-Product Build ..." -> "2024.2".
json version_after(const std::string& config, const std::string& marker) {
  const auto at = config.find(marker);
  if (at == std::string::npos) return nullptr;
  const auto begin = at + marker.size();
  const auto end = config.find_first_of(" -\n", begin);
  return config.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

#ifdef FTB_WITH_CUDA
// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_string(long v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// cuDNN 9 encodes 10000 * major + 100 * minor + patch; cuDNN 8 1000 * major + ...
std::string cudnn_version_string(long v) {
  const long major = v >= 90000 ? v / 10000 : v / 1000;
  const long minor = v >= 90000 ? (v % 10000) / 100 : (v % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}
#endif

}  // namespace

json cpu_identity(const std::string& cpuinfo) {
  json cpu = {{"model", nullptr}, {"vendor", nullptr},   {"family", nullptr},
              {"model_number", nullptr}, {"stepping", nullptr}, {"microcode", nullptr}, {"isa", nullptr}};
  std::set<std::pair<std::string, std::string>> cores;
  std::istringstream in(cpuinfo);
  std::string line, physical_id = "0";
  int processors = 0;  // identity from the first processor's lines
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "processor") ++processors;
    if (key == "physical id") physical_id = value;
    if (key == "core id") cores.emplace(physical_id, value);
    if (processors > 1) continue;
    auto set_once = [&](const char* name, json v) {
      if (cpu[name].is_null()) cpu[name] = std::move(v);
    };
    if (key == "model name") set_once("model", value);
    if (key == "vendor_id" || key == "CPU implementer") set_once("vendor", value);
    if (key == "cpu family" || key == "CPU architecture") set_once("family", number_or_text(value));
    if (key == "model" || key == "CPU part") set_once("model_number", number_or_text(value));
    if (key == "stepping" || key == "CPU revision") set_once("stepping", number_or_text(value));
    if (key == "microcode") set_once("microcode", value);
    if ((key == "flags" || key == "Features") && cpu["isa"].is_null()) {
      std::set<std::string> flags;
      std::istringstream words(value);
      for (std::string w; words >> w;) flags.insert(w);
      json isa = json::object();
      for (const auto& f : decisive_isa()) isa[f] = flags.count(f) > 0;
      cpu["isa"] = std::move(isa);
    }
  }
  cpu["physical_cores"] = cores.empty() ? json(nullptr) : json(cores.size());
  return cpu;
}

namespace {

// Where this process runs: the host, its OS, its CPU, its memory.
void add_host_facts(json& env) {
  env["host"] = host_name();
  struct utsname u {};
  if (::uname(&u) == 0) {
    env["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
    env["kernel"] = u.release;
  } else {
    env["os"] = nullptr;
    env["kernel"] = nullptr;
  }
  env["distro"] = os_release_name();
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream cpuinfo_text;
  cpuinfo_text << cpuinfo.rdbuf();
  json cpu = cpu_identity(cpuinfo_text.str());
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpu["logical_cores"] = online > 0 ? json(online) : json(nullptr);
  // What this process may use (taskset, container cpusets), which can be
  // fewer than the machine has.
  cpu_set_t set;
  CPU_ZERO(&set);
  cpu["available_cores"] = ::sched_getaffinity(0, sizeof set, &set) == 0 ? json(CPU_COUNT(&set)) : json(nullptr);
  cpu["frequency_governor"] = sysfs_or_not_exposed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  cpu["frequency_driver"] = sysfs_or_not_exposed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
  env["cpu"] = std::move(cpu);
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  env["memory_bytes"] = pages > 0 && page_size > 0 ? json(static_cast<int64_t>(pages) * page_size) : json(nullptr);
}

#ifdef FTB_WITH_CUDA
// The versions LibTorch was built with; they need no GPU, only libtorch_cuda.
void add_libtorch_cuda_versions(json& libtorch) {
  const auto& hooks = at::detail::getCUDAHooks();
  try {
    libtorch["cuda"] = cuda_version_string(hooks.versionCUDART());
  } catch (const c10::Error&) {
  }
  try {
    if (hooks.compiledWithCuDNN()) libtorch["cudnn"] = cudnn_version_string(hooks.versionCuDNN());
  } catch (const c10::Error&) {
  }
  // NCCL packs (major << 32) | (minor << 16) | patch; 0 when built without it.
  if (const uint64_t v = torch::cuda::nccl::version(); v != 0) {
    libtorch["nccl"] = std::to_string(v >> 32) + "." + std::to_string((v >> 16) & 0xffff) + "." +
                       std::to_string(v & 0xffff);
  }
}

// The GPUs CUDA sees (CUDA_VISIBLE_DEVICES and MIG decide which), each with
// the UUID that ties it to NVML's list.
json visible_gpus() {
  json gpus = json::array();
  if (!torch::cuda::is_available()) return gpus;
  const int64_t n = torch::cuda::device_count();
  for (int64_t i = 0; i < n; ++i) {
    const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
    std::array<unsigned char, 16> uuid{};
    std::copy(p->uuid.bytes, p->uuid.bytes + 16, uuid.begin());
    gpus.push_back({{"index", i},
                    {"name", p->name},
                    {"uuid", gpu_uuid_text(uuid)},
                    {"total_memory_bytes", static_cast<int64_t>(p->totalGlobalMem)},
                    {"capability", std::to_string(p->major) + "." + std::to_string(p->minor)},
                    {"multiprocessors", p->multiProcessorCount}});
  }
  return gpus;
}
#endif

// TF32 decides what an fp32 matmul is (and the datasheet peak fp32 MFU is
// taken against: core/measure/datasheet_peaks.h assumes it off).
json tf32_state() {
  auto& ctx = at::globalContext();
  return {{"cublas_matmul", ctx.allowTF32CuBLAS()},
          {"cudnn", ctx.allowTF32CuDNN()},
          {"float32_matmul_precision", ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGHEST ? "highest"
                                       : ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGH  ? "high"
                                                                                                          : "medium"}};
}

// The GPUs, the driver and the CUDA, cuDNN and NCCL LibTorch brings.
void add_gpu_facts(json& env) {
  json gpus = json::array();
  json driver = nullptr;
  json libtorch = {{"version", TORCH_VERSION}, {"cuda", nullptr}, {"cudnn", nullptr}, {"nccl", nullptr}};
#ifdef FTB_WITH_CUDA
  add_libtorch_cuda_versions(libtorch);
  int driver_version = 0;
  if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0)
    driver = cuda_version_string(driver_version);
  gpus = visible_gpus();
#endif
  libtorch["tf32"] = tf32_state();
  // The driver and the GPUs as NVML sees them (name, UUID, clocks, power,
  // ECC, MIG, links); {"available": false, "reason"} on machines without one.
  env["nvml"] = nvml_facts();
  map_visible_gpus(gpus, env["nvml"]);
  env["gpus"] = std::move(gpus);
  env["cuda_driver"] = std::move(driver);
  env["libtorch"] = std::move(libtorch);
  env["driver_version"] = env["nvml"].value("driver_version", nlohmann::json(nullptr));
}

// How this ftbench was built and how LibTorch runs here.
void add_build_facts(json& env) {
  env["attn_implementation"] = kAttnImplementation;
  env["compiler"] = compiler();
  env["build_type"] = ftb::build_type();
  // What the build left in or out: a missing nccl.h leaves the NCCL process
  // group out (distributed CUDA rows skip); a missing NVTX header, the ranges.
  env["built_with"] = {{"cuda", FTB_BUILT_WITH_CUDA != 0},
                       {"nccl_process_group", FTB_WITH_NCCL != 0},
                       {"nvtx_ranges", nvtx_enabled()}};
  env["threads"] = {{"intra_op", at::get_num_threads()},
                    {"inter_op", at::get_num_interop_threads()},
                    {"parallel_info", at::get_parallel_info()}};
  env["env_vars"] = env_vars();
  env["env_vars_watched"] = watched_env_vars();
  env["git_commit"] = build_git_commit();
  env["git_tree"] = build_git_tree();
  const std::string config = at::show_config();
  env["blas"] = show_config_value(config, "BLAS_INFO");
  env["libtorch"]["cpu_capability"] = show_config_line(config, "CPU capability usage: ");
  env["libtorch"]["mkl"] = version_after(config, "Math Kernel Library Version ");
  env["libtorch"]["onednn"] = version_after(config, "MKL-DNN v");
}

}  // namespace

std::string gpu_uuid_text(const std::array<unsigned char, 16>& bytes) {
  static const char* hex = "0123456789abcdef";
  std::string out = "GPU-";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[bytes[i] >> 4];
    out += hex[bytes[i] & 0xf];
  }
  return out;
}

void map_visible_gpus(json& cuda_gpus, const json& nvml) {
  const json none = json::array();
  const json& listed = nvml.contains("gpus") ? nvml.at("gpus") : none;
  for (auto& g : cuda_gpus) {
    g["nvml_index"] = nullptr;
    if (!g.contains("uuid") || !g["uuid"].is_string()) continue;
    for (const auto& n : listed)
      if (n.contains("uuid") && n["uuid"] == g["uuid"]) g["nvml_index"] = n.value("index", json(nullptr));
  }
}

json capture_environment() {
  json env;
  add_host_facts(env);
  add_gpu_facts(env);
  add_build_facts(env);
  env["timestamp"] = utc_timestamp();
  return env;
}


}  // namespace ftb
