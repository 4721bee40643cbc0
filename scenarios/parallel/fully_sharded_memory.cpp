// What FullyShardedUnits holds and needs (see fully_sharded.h): the sizes
// of its shards, gradients and optimizer state, and the modelled and
// measured device bytes the row reports and max_device_bytes checks.
#include "scenarios/parallel/fully_sharded.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/train/optimizer.h"
#include "scenarios/parallel/fully_sharded_unit.h"
#include "scenarios/parallel/held_memory.h"

namespace ftb::dist {

int64_t FullyShardedUnits::optimizer_state_bytes() const {
  return host_ ? host_->adam().state_bytes() : adam_->state_bytes();
}

std::string FullyShardedUnits::optimizer_label() const {
  if (host_) return ftb::optimizer_label(host_->adam(), "this rank's shard of each unit, on the host (offload)");
  return ftb::optimizer_label(*adam_, "this rank's shard of each unit");
}

int64_t FullyShardedUnits::gradient_bytes() const {
  int64_t n = 0;
  for (const auto& g : shard_grads_) n += g.nbytes();
  return n;
}

int64_t FullyShardedUnits::staging_bytes() const { return max_staging_; }

std::vector<int64_t> FullyShardedUnits::unit_bytes() const {
  std::vector<int64_t> out;
  for (const auto& u : units_) out.push_back(u->bytes());
  return out;
}

int64_t FullyShardedUnits::parameter_count() const {
  int64_t n = 0;
  for (const auto& u : units_) n += u->numel;
  return n;
}

DeviceBytes FullyShardedUnits::device_bytes_needed(MemoryPhase phase) const {
  DeviceBytes need = kept_bytes();
  if (phase == MemoryPhase::evaluation) {
    for (const auto& u : units_) need.gathered += u->bytes() + u->send_bytes();
    return need;
  }
  const int64_t reduce_size = static_cast<int64_t>(c10::elementSize(precision_.reduce));
  // Accumulating (accumulate=K > 1, or sync turned off once): every unit's
  // fp32 sum is alive from the first micro-batch to its reduce (an upper
  // bound: a unit's becomes its copy when it is reduced in fp32).
  if (accumulated_ || options_.accumulate > 1)
    for (const auto& u : units_) need.gradients += u->padded * 4;
  // Backward's peak, at unit u's reduce: u and u - 1 (prefetched) whole,
  // u's full gradients, unit u + 1's copy still in flight, and either u's
  // copy or, before the wait that makes room for it, unit u + 2's; the worst
  // u. (Forward holds u and u + 1 whole, no more.)
  int64_t worst = -1;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const auto& u = *units_[i];
    const int64_t gathered = u.bytes() + (i > 0 ? units_[i - 1]->bytes() + units_[i - 1]->send_bytes() : 0);
    auto copy_of = [&](std::size_t k) { return k < units_.size() ? units_[k]->padded * reduce_size : 0; };
    const int64_t copy = std::max(copy_of(i), copy_of(i + 2));
    const int64_t staging = u.numel * u.gather_size + copy + copy_of(i + 1);
    if (gathered + staging > worst) {
      worst = gathered + staging;
      need.gathered = gathered;
      need.staging = staging;
    }
  }
  return need;
}

int64_t FullyShardedUnits::held_bytes() const {
  std::vector<torch::Tensor> tensors;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const auto& u = *units_[i];
    tensors.push_back(u.full);  // resized to 0 while sharded
    tensors.push_back(u.setup);
    tensors.push_back(u.send);
    tensors.push_back(u.staging);
    tensors.push_back(u.reduced_chunk);
    tensors.push_back(u.accumulated);
    tensors.push_back(shards_[i]);
    tensors.push_back(shard_grads_[i]);
    for (const auto& p : u.params) tensors.push_back(p.grad());
  }
  return storage_bytes(tensors) + (host_ ? 0 : optimizer_state_bytes());
}

int64_t FullyShardedUnits::parameter_bytes() const {
  int64_t n = 0;
  for (const auto& s : shards_) n += s.nbytes();
  return n;
}

}  // namespace ftb::dist
