#include "core/measure/device.h"

#include <fstream>
#include <string>

#include <algorithm>
#include <thread>

#include <sys/resource.h>

#include "core/base/errors.h"

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace ftb {

int cuda_device_count() {
  return cuda_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

bool cuda_available() { return torch::cuda::is_available(); }

std::string cuda_device_name(const torch::Device& device) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) return at::cuda::getDeviceProperties(device.index())->name;
#endif
  (void)device;
  return "";
}

torch::Device cuda_device_of_rank(int local_rank) {
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local_rank % std::max(1, cuda_device_count())));
}

torch::Device resolve_device(const std::string& spec) {
  if (spec == "auto") return cuda_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (spec == "cpu") return torch::Device(torch::kCPU);
  if (spec.rfind("cuda", 0) == 0) {
    if (!cuda_available()) input_error("--device", "\"" + spec + "\" requested but no CUDA device is available");
    try {
      torch::Device d(spec);
      if (!d.has_index()) d.set_index(0);
      if (d.index() >= static_cast<int>(torch::cuda::device_count()))
        input_error("--device", "\"" + spec + "\": no such CUDA device");
      return d;
    } catch (const c10::Error&) {
      input_error("--device", "cannot parse \"" + spec + "\"");
    }
  }
  input_error("--device", "unknown device \"" + spec + "\" (auto, cpu, cuda, cuda:N)");
}

DeviceScope::DeviceScope(const torch::Device& device) {
  if (device.is_cuda() && device.has_index()) guard_.reset_device(device);
}

void synchronize(const torch::Device& device) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) {
    const c10::cuda::CUDAGuard on(device);  // device_synchronize waits on the current device only
    c10::cuda::device_synchronize();
  }
#else
  (void)device;
#endif
}

namespace {
// Linux resets the peak resident set (VmHWM) to the current one when "5" is
// written to /proc/self/clear_refs (since 4.0); getrusage's maximum never resets.
bool& rss_peak_was_reset() {
  static bool reset = false;
  return reset;
}

int64_t vm_hwm_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "VmHWM:  123 kB"
  return -1;
}
}  // namespace

void reset_peak_memory(const torch::Device& device) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
    return;
  }
#endif
  (void)device;
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  rss_peak_was_reset() = static_cast<bool>(clear) && vm_hwm_bytes() > 0;
}

void release_cached_memory(const torch::Device& device) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#else
  (void)device;
#endif
}

int64_t peak_memory_bytes(const torch::Device& device, std::string* source) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) {
    if (source) *source = "cuda_max_allocated";
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return stats.allocated_bytes[0].peak;  // StatType::AGGREGATE
  }
#endif
  (void)device;
  if (rss_peak_was_reset()) {
    if (const int64_t hwm = vm_hwm_bytes(); hwm > 0) {
      if (source) *source = "rss_peak_since_row_start";
      return hwm;
    }
  }
  if (source) *source = "process_max_rss";
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;
}

DeviceMemoryUse device_memory_use(const torch::Device& device) {
  DeviceMemoryUse use;
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) {
    use.peak_reserved_bytes =
        c10::cuda::CUDACachingAllocator::getDeviceStats(device.index()).reserved_bytes[0].peak;
    const c10::cuda::CUDAGuard on(device);  // cudaMemGetInfo reports the current device
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) use.device_used_bytes = static_cast<int64_t>(total - free);
  }
#else
  (void)device;
#endif
  return use;
}

void seed_everything(uint64_t seed) {
  torch::manual_seed(seed);
  if (cuda_available()) torch::cuda::manual_seed_all(seed);
}

int configure_threads(int requested) {
  const int n = requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
  return n;
}

}  // namespace ftb
