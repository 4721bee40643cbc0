// Data parallelism on c10d, the three ways the reference's table does it:
//   ddp      gradients averaged by all-reduce (PyTorch's DistributedDataParallel)
//   sharded  ZeRO-1: all-reduce as ddp, but each rank keeps Adam state for its
//            shard only, steps it, and the parameters are all-gathered
//   zero2    ZeRO-2: gradients reduce-scattered, so each rank holds only its
//            shard's gradients and Adam state; parameters all-gathered
//
// Layout (one code path for all three): parameters are packed, in reverse
// registration order (the order backward produces their gradients, as
// DDP's reducer assumes), into buckets of at most bucket_cap bytes (the
// first one 1 MiB, as DDP's). Each bucket is one flat buffer, padded to a
// multiple of the world size, and the model's parameters become views into
// it; rank r owns chunk r of every bucket. For ddp/sharded the gradients are views into a flat gradient buffer
// too (DDP's gradient_as_bucket_view), so all-reduce runs in place.
//
// Overlap: an autograd post-hook on each parameter's gradient accumulator
// counts the bucket's ready gradients; a full bucket's collective is issued at
// once from inside backward (in bucket order, the same on every rank) and
// runs on the backend's threads/stream while backward goes on.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/train/optimizer.h"
#include "scenarios/parallel/communicator.h"
#include "core/train/grad_scaler.h"

namespace ftb::dist {

enum class Sharding { none, optimizer, gradients };  // ddp, sharded (ZeRO-1), zero2
Sharding sharding_from_string(const std::string& name);  // "ddp" | "sharded" | "zero2"
std::string to_string(Sharding s);

struct DataParallelOptions {
  Sharding sharding = Sharding::none;
  int64_t bucket_cap_bytes = 25 * 1024 * 1024;  // PyTorch DDP's bucket_cap_mb = 25
  // The first bucket (the last layers, whose gradients backward produces
  // first) is capped lower so communication starts early, as DDP's
  // _DEFAULT_FIRST_BUCKET_BYTES = 1 MiB.
  int64_t first_bucket_cap_bytes = 1024 * 1024;
  double lr = 5e-5;                              // Adam, as the reference (no weight decay)
};

class DataParallel {
 public:
  // params: the model's parameters (fp32, on the communicator's device). They
  // are re-pointed into the bucket buffers; broadcast_parameters() then makes
  // every rank start from rank 0's values.
  DataParallel(std::vector<torch::Tensor> params, std::shared_ptr<Communicator> comm,
               DataParallelOptions options);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  void broadcast_parameters(int root = 0);
  void zero_grad();
  // After loss.backward(): issues any bucket the hooks did not (unused
  // parameters) and waits for every collective. Then local_grads() hold the
  // average over ranks.
  void finish_gradient_sync();
  // What this rank's optimizer reads: ddp every bucket, sharded its chunk of
  // each bucket's averaged gradients, zero2 its reduced chunks. Loss scaling
  // unscales and checks these.
  std::vector<torch::Tensor> local_grads() const;
  // Adam on this rank's part, then (sharded, zero2) all-gather of the
  // parameters. found_inf (0-dim, on the device, equal on all ranks): > 0
  // skips the update on the device.
  void step(const torch::Tensor& found_inf = {});

  Sharding sharding() const { return options_.sharding; }
  Communicator& comm() { return *comm_; }
  int64_t bucket_cap_bytes() const { return options_.bucket_cap_bytes; }
  std::size_t bucket_count() const { return buckets_.size(); }
  int64_t optimizer_state_bytes() const { return adam_ ? adam_->state_bytes() : 0; }
  // What steps: "adam/<kernel>, flat buckets" (ddp) or "..., this rank's shard".
  std::string optimizer_label() const;
  int64_t gradient_bytes() const;  // gradient storage this rank keeps between steps
  int64_t staging_bytes() const;   // zero2: bucket copies in flight during backward (at most 2)
  // Buckets whose collective the hooks issued while backward was running, in
  // the last step (the rest were issued by finish_gradient_sync).
  std::size_t buckets_issued_in_backward() const { return issued_in_backward_; }

 private:
  struct Bucket;
  void on_grad_ready(std::size_t param);
  void launch(std::size_t bucket);
  void release(std::size_t bucket);  // wait for its collective and drop the zero2 staging

  std::vector<torch::Tensor> params_;  // in registration order
  std::shared_ptr<Communicator> comm_;
  DataParallelOptions options_;
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::vector<std::size_t> bucket_of_;  // param index -> bucket
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;  // keep the hooked nodes alive
  std::size_t next_launch_ = 0;         // buckets are issued strictly in order
  std::size_t issued_in_backward_ = 0;
  std::unique_ptr<FusedAdam> adam_;
  int64_t max_staging_ = 0;
};

// The optimizer step under loss scaling (16-mixed), as PyTorch's
// ShardedGradScaler does it: unscale and check this rank's gradients, make
// every rank agree on a skip (MAX; sharded ranks saw different chunks), step
// (skipped on the device), update the scale. Returns 1 if skipped, else 0
// (0-dim float on the device: add it up, read it once).
torch::Tensor scaled_step(DataParallel& dp, GradScaler& scaler);

}  // namespace ftb::dist
