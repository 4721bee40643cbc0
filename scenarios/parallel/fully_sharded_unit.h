// FullyShardedUnits' unit (see fully_sharded.h): one flat buffer of its
// parameters and the state of its gathers and reduces. Shared by the files
// that implement the class, included by nothing else.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "scenarios/parallel/fully_sharded.h"

namespace ftb::dist {

struct FullyShardedUnits::Unit {
  std::vector<torch::Tensor> params;  // the model's, views into full
  std::vector<int64_t> offsets;       // element offset of each in full
  int64_t numel = 0, padded = 0, chunk = 0;
  torch::Tensor full;                 // (padded, gather dtype): whole, or its storage resized to 0
  torch::Tensor setup;                // mixed precision: the fp32 whole until sharded (the master's source)
  bool whole = false;
  Pending gathering;                  // an issued all-gather into full
  torch::Tensor send;                 // mixed precision: this rank's shard cast for that all-gather
  std::size_t ready = 0;              // parameters whose gradient is accumulated
  std::vector<char> arrived;          // param -> its gradient arrived since zero_grad()
  bool reduced = false;
  torch::Tensor staging;              // (padded, reduce dtype) gradients while they are reduce-scattered
  torch::Tensor reduced_chunk;        // reduce dtype not fp32: where the reduce-scatter lands first
  Pending reducing;
  torch::Tensor accumulated;          // sync off: (padded, fp32) the micro-batches' gradients so far
  int64_t gather_size = 4;            // bytes an element in the gather dtype
  int64_t bytes() const { return padded * gather_size; }
  int64_t send_bytes() const { return gather_size == 4 ? 0 : chunk * gather_size; }
};

}  // namespace ftb::dist
