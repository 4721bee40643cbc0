#include "scenarios/parallel/held_memory.h"

#include <algorithm>
#include <unordered_set>

#include "core/measure/device.h"

namespace ftb::dist {

const char* to_string(MemoryPhase p) { return p == MemoryPhase::training ? "training" : "evaluation"; }

std::string DeviceBytes::describe() const {
  return "parameters " + std::to_string(parameters) + ", gradients " + std::to_string(gradients) +
         ", optimizer state " + std::to_string(optimizer) + ", gathered units " + std::to_string(gathered) +
         ", staging " + std::to_string(staging);
}

int64_t storage_bytes(const std::vector<torch::Tensor>& tensors) {
  std::unordered_set<const void*> seen;
  int64_t n = 0;
  for (const auto& t : tensors) {
    if (!t.defined() || !t.has_storage()) continue;
    const c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
    if (seen.insert(impl).second) n += static_cast<int64_t>(impl->nbytes());
  }
  return n;
}

HeldMemory::HeldMemory(torch::Device device) : device_(device) {}

void HeldMemory::close_cuda_phase() {
  if (!device_.is_cuda()) return;
  const int64_t now = peak_memory_bytes(device_);  // since the last reset, in a phase or not
  row_peak_ = std::max(row_peak_, now);
  if (!phase_) return;
  auto& peak = peaks_[static_cast<std::size_t>(*phase_)];
  peak = std::max(peak, now);
}

void HeldMemory::enter(MemoryPhase phase) {
  close_cuda_phase();
  if (device_.is_cuda()) reset_peak_memory(device_);  // never on a CPU: that resets the process's RSS peak
  phase_ = phase;
}

void HeldMemory::finish() {
  close_cuda_phase();
  phase_.reset();
}

void HeldMemory::sample(int64_t bytes) {
  if (!phase_ || device_.is_cuda()) return;
  auto& peak = peaks_[static_cast<std::size_t>(*phase_)];
  peak = std::max(peak, bytes);
  ++samples_[static_cast<std::size_t>(*phase_)];
}

std::string HeldMemory::source() const { return device_.is_cuda() ? "cuda_max_allocated" : "tracked_tensors"; }

}  // namespace ftb::dist
