// ZeRO-Offload's optimizer: a rank's fp32 master shards, Adam's state and
// Adam's step in host memory (page-locked beside a GPU, so the copies are
// asynchronous). Each step copies the shard's gradients device-to-host,
// steps the fused CPU Adam over the flat host buffers, and copies the
// updated shards host-to-device. Used by DataParallel (sharded, zero2) and
// FullyShardedUnits (zero3) alike. On a CPU the device is the host: the
// copies are host to host.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/train/fused_adam.h"

namespace ftb::dist {

class HostOptimizer {
 public:
  // shards: this rank's parameter shards on the device (fp32, flat); their
  // masters start as copies.
  HostOptimizer(const std::vector<torch::Tensor>& shards, double lr);
  // The masters from `shards` again (after the parameters were broadcast).
  void refresh(const std::vector<torch::Tensor>& shards);
  // grads[i]: shard i's gradient on the device; found_inf (0-dim, any
  // device, may be undefined): > 0 skips the update. Writes the updated
  // masters into shards.
  void step(const std::vector<torch::Tensor>& grads, const std::vector<torch::Tensor>& shards,
            const torch::Tensor& found_inf);

  FusedAdam& adam() { return *adam_; }
  const FusedAdam& adam() const { return *adam_; }
  int64_t host_bytes() const;      // masters + gradient staging + Adam's state
  int64_t bytes_per_step() const;  // device-to-host gradients + host-to-device parameters
  double wait_s() const { return wait_s_; }  // host time blocked in the copies

 private:
  std::vector<torch::Tensor> master_, grads_;
  std::unique_ptr<FusedAdam> adam_;
  double wait_s_ = 0;
};

}  // namespace ftb::dist
