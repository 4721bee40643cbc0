// Device helpers: choosing the device, synchronising before reading a clock,
// and peak memory. CUDA calls are compiled only with FTB_WITH_CUDA.
#pragma once

#include <torch/torch.h>

#include <string>

namespace ftb {

// "auto" -> cuda:0 when available else cpu; "cpu"; "cuda"; "cuda:N".
// Unknown or unavailable -> InputError naming --device.
torch::Device resolve_device(const std::string& spec);
bool cuda_available();
int cuda_device_count();  // 0 without CUDA
// The driver's name of a CUDA device ("NVIDIA H200"); "" for a CPU.
std::string cuda_device_name(const torch::Device& device);
// One GPU per rank of a machine: cuda:(local_rank mod the visible GPUs), so a
// launcher that gives each rank its own GPU (SLURM --gpus-per-task=1) leaves
// every rank device 0.
torch::Device cuda_device_of_rank(int local_rank);
// Makes a CUDA `device` the thread's current device for its lifetime (CPU:
// nothing). Every row and every rank runs under one for its device: torch's
// argument-less calls (the current stream, a new event's record, the stream
// pool, cudaDeviceSynchronize) act on the current device, which is 0 in every
// new thread. tests/device_guard_check.sh refuses those forms elsewhere.
class DeviceScope {
 public:
  explicit DeviceScope(const torch::Device& device);
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  c10::OptionalDeviceGuard guard_;
};
// Blocks until queued work on `device` is done (no-op on CPU, where ops are
// synchronous): every timed region ends with it.
void synchronize(const torch::Device& device);
void reset_peak_memory(const torch::Device& device);
// CUDA: returns the caching allocator's free blocks to the device (after an
// allocation it refused, so that the next try starts clean). CPU: no-op.
void release_cached_memory(const torch::Device& device);
// CUDA: the caching allocator's peak allocated bytes since the last reset.
// CPU: the peak resident set since the row's reset_peak_memory (Linux's
// VmHWM after /proc/self/clear_refs; source "rss_peak_since_row_start": the
// process's whole footprint, data included, at its highest during the row),
// or, where that reset is refused, the process's lifetime maximum
// ("process_max_rss", the same figure for every row after the largest).
int64_t peak_memory_bytes(const torch::Device& device, std::string* source = nullptr);
// CUDA: what decides an out-of-memory besides the allocated peak: the
// caching allocator's peak reserved bytes since the last reset, and the
// device memory in use now by every process and context (total - free, CUDA's
// own context included). -1 on a CPU.
struct DeviceMemoryUse {
  int64_t peak_reserved_bytes = -1;
  int64_t device_used_bytes = -1;
};
DeviceMemoryUse device_memory_use(const torch::Device& device);
// Sets LibTorch's intra-op threads explicitly (builds differ in the default:
// some pick half the cores); 0 = every core. Returns the count.
int configure_threads(int requested);

// Seeds every generator we use (CPU, CUDA).
void seed_everything(uint64_t seed);

}  // namespace ftb
