// What a rank's device holds, measured, per phase of the loop: training (the
// steps) and evaluation (validation, test and the metric sums).
//   CUDA  the caching allocator's peak of allocated bytes, read and reset at
//         each change of phase (every tensor: activations, autocast's casts,
//         the strategy's state).
//   CPU   no allocator to ask: the bytes of the strategy's own tensors that
//         are alive (parameters, gradients, optimizer state on the device,
//         gathered zero3 units, staging copies), read from their storages at
//         the instants the strategy reaches a peak (its hooks call sample()).
//         Activations and autocast's casts are not in it.
// Beside it, what a strategy says each phase will need (DeviceBytes, a
// formula over its own layout): what max_device_bytes checks.
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ftb::dist {

enum class MemoryPhase { training, evaluation };
constexpr std::array<MemoryPhase, 2> kMemoryPhases = {MemoryPhase::training, MemoryPhase::evaluation};
const char* to_string(MemoryPhase p);

// A strategy's device bytes of one phase, by kind (modelled from its layout).
struct DeviceBytes {
  int64_t parameters = 0, gradients = 0, optimizer = 0;  // kept between steps
  int64_t gathered = 0;  // zero3: whole units on top of the shards
  int64_t staging = 0;   // gradient copies in flight, full gradients before their reduce, all-gather sends
  int64_t total() const { return parameters + gradients + optimizer + gathered + staging; }
  std::string describe() const;  // "parameters N, gradients N, ..."
};

// Bytes of the distinct storages under `tensors` (views of one buffer count
// once; an undefined tensor, or a storage resized to 0, counts 0).
int64_t storage_bytes(const std::vector<torch::Tensor>& tensors);

class HeldMemory {
 public:
  explicit HeldMemory(torch::Device device);
  // From now on bytes count for `phase`. On CUDA the allocator's peak since
  // the last change goes to the phase that ends, and is reset.
  void enter(MemoryPhase phase);
  // Closes the current phase (after the loop): nothing counts after it.
  void finish();
  // Whether sample() is used (CPU): callers skip computing the bytes on CUDA.
  bool tracks_tensors() const { return !device_.is_cuda(); }
  // The strategy's tensors' bytes alive now (CPU); ignored outside a phase.
  void sample(int64_t bytes);
  int64_t peak(MemoryPhase p) const { return peaks_[static_cast<std::size_t>(p)]; }
  // How many samples counted for `p` (what the tracking costs is this times held_bytes()).
  int64_t samples(MemoryPhase p) const { return samples_[static_cast<std::size_t>(p)]; }
  // CUDA: the allocator's peak over the whole row, across the phases' resets
  // (read before each reset, the time before the first phase included); 0 on
  // a CPU.
  int64_t row_peak() const { return row_peak_; }
  // "tracked_tensors" (CPU) or "cuda_max_allocated".
  std::string source() const;

 private:
  void close_cuda_phase();
  torch::Device device_;
  std::optional<MemoryPhase> phase_;
  std::array<int64_t, 2> peaks_{0, 0};
  std::array<int64_t, 2> samples_{0, 0};
  int64_t row_peak_ = 0;
};

}  // namespace ftb::dist
