#include "core/measure/environment.h"

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

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/model/attention.h"
#include "core/measure/build_info.h"
#include "core/measure/nvml.h"

namespace ftb {

using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// "model name" and the distinct (physical id, core id) pairs of /proc/cpuinfo.
// Either may be absent (ARM has no "model name"; some VMs hide core ids).
json cpu_info() {
  json cpu;
  cpu["model"] = nullptr;
  std::set<std::pair<std::string, std::string>> cores;
  std::ifstream in("/proc/cpuinfo");
  std::string line, physical_id = "0";
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "model name" && cpu["model"].is_null()) cpu["model"] = value;
    if (key == "physical id") physical_id = value;
    if (key == "core id") cores.emplace(physical_id, value);
  }
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpu["logical_cores"] = online > 0 ? json(online) : json(nullptr);
  // What this process may use (taskset, container cpusets), which can be
  // fewer than the machine has.
  cpu_set_t set;
  CPU_ZERO(&set);
  cpu["available_cores"] = ::sched_getaffinity(0, sizeof set, &set) == 0 ? json(CPU_COUNT(&set)) : json(nullptr);
  cpu["physical_cores"] = cores.empty() ? json(nullptr) : json(cores.size());
  return cpu;
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


std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

json env_vars() {
  json vars = json::object();
  for (const char* name : {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
                           "NCCL_ALGO", "NCCL_PROTO", "TORCH_NCCL_ASYNC_ERROR_HANDLING"}) {
    if (const char* v = std::getenv(name)) vars[name] = v;
  }
  return vars;
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

json capture_environment() {
  json env;
  env["host"] = hostname();
  struct utsname u {};
  if (::uname(&u) == 0) {
    env["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  } else {
    env["os"] = nullptr;
  }
  env["distro"] = os_release_name();
  env["cpu"] = cpu_info();
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  env["memory_bytes"] = pages > 0 && page_size > 0 ? json(static_cast<int64_t>(pages) * page_size) : json(nullptr);

  json gpus = json::array();
  json driver = nullptr;
  json libtorch = {{"version", TORCH_VERSION}, {"cuda", nullptr}, {"cudnn", nullptr}, {"nccl", nullptr}};
#ifdef FTB_WITH_CUDA
  // Versions LibTorch was built with; they need no GPU, only libtorch_cuda.
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
  int driver_version = 0;
  if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0) {
    driver = cuda_version_string(driver_version);
  }
  if (torch::cuda::is_available()) {
    const int64_t n = torch::cuda::device_count();
    for (int64_t i = 0; i < n; ++i) {
      const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
      gpus.push_back({{"index", i},
                      {"name", p->name},
                      {"total_memory_bytes", static_cast<int64_t>(p->totalGlobalMem)},
                      {"capability", std::to_string(p->major) + "." + std::to_string(p->minor)},
                      {"multiprocessors", p->multiProcessorCount}});
    }
  }
#endif
  env["gpus"] = std::move(gpus);
  env["cuda_driver"] = std::move(driver);
  env["libtorch"] = std::move(libtorch);

  env["attn_implementation"] = kAttnImplementation;
  env["compiler"] = compiler();
  env["build_type"] = ftb::build_type();
  env["threads"] = {{"intra_op", at::get_num_threads()},
                    {"inter_op", at::get_num_interop_threads()},
                    {"parallel_info", at::get_parallel_info()}};
  env["env_vars"] = env_vars();
  env["git_commit"] = build_git_commit();
  env["git_tree"] = build_git_tree();
  // The driver and the GPUs as NVML sees them (name, UUID, clocks, power,
  // ECC, MIG, links); {"available": false, "reason"} on machines without one.
  env["nvml"] = nvml_facts();
  env["driver_version"] = env["nvml"].value("driver_version", nlohmann::json(nullptr));
  env["blas"] = show_config_value(at::show_config(), "BLAS_INFO");
  env["timestamp"] = utc_timestamp();
  return env;
}

}  // namespace ftb
