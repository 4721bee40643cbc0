// Data parallelism on c10d, the three ways the reference's table does it:
//   ddp      gradients averaged by all-reduce (PyTorch's DistributedDataParallel)
//   sharded  ZeRO-1: all-reduce as ddp, but each rank keeps Adam state for its
//            shard only, steps it, and the parameters are all-gathered
//   zero2    ZeRO-2: gradients reduce-scattered, so each rank holds only its
//            shard's gradients and Adam state; parameters all-gathered
// and, for sharded and zero2, ZeRO-Offload (options.offload, DeepSpeed's
// stage-2 offload): the fp32 master of the rank's shard, Adam's state and
// Adam's step live in host memory; each step copies the shard's gradients
// device-to-host, steps Adam on the host (the fused CPU kernel over flat
// buffers), and copies the updated shard host-to-device before the
// all-gather. On a CPU the device is the host: the copies are host to host
// and the report says so.
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
//
// One synchronised backward per zero_grad(): the hooks count and reduce
// each bucket once, so a second backward with sync on would add gradients
// never reduced (ranks diverge): it throws (refuse_second_backward, naming
// accumulate), for every row.
//
// Gradient accumulation (accumulate=K, GradientSync::set_sync, DDP's
// no_sync): with sync off a backward's hooks count and issue nothing, and
// autograd adds the micro-batch's gradients into what the backwards since
// zero_grad() left: for ddp and sharded in place in the flat gradient
// buffers (the parameters' gradients are views into them), for zero2 (and
// its offload) into each parameter's own full gradient. The K-th backward,
// with sync on, counts and reduces the buckets once, as a single backward
// does: one all-reduce (reduce-scatter) of the sum per optimizer step, so
// ddp's collective bytes per step do not grow with K. Memory: ddp and
// sharded keep nothing extra (their gradients are whole anyway). zero2 keeps
// every parameter's full fp32 gradient alive from the first micro-batch to
// the K-th one's reduce, 4 bytes per parameter where it otherwise holds
// only its 4/N shard and the buckets in flight: what stage 2 saves on
// gradients it gives back while accumulating (DeepSpeed instead reduces
// every micro-batch: K reduce-scatters a step for the shard's memory). The
// modelled bytes (device_bytes_needed, max_device_bytes) count it where
// options.accumulate > 1.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/train/optimizer.h"
#include "scenarios/parallel/communicator.h"
#include "core/train/grad_scaler.h"
#include "scenarios/parallel/held_memory.h"
#include "scenarios/parallel/host_optimizer.h"

namespace ftb::dist {

enum class Sharding { none, optimizer, gradients, parameters };  // ddp, sharded (ZeRO-1), zero2, zero3
std::string to_string(Sharding s);

// A strategy (core/train/train_options.h): what it shards, and whether it
// offloads the optimizer; and back (std::logic_error for a pair no row runs).
Sharding sharding_of(Strategy s);
bool offloaded(Strategy s);
Strategy strategy_of(Sharding sharding, bool offload);

// A parameter's gradient arrived a second time since zero_grad(): a second
// backward before the optimizer step, which the strategies' hooks would
// reduce wrongly or not at all. std::logic_error naming the row and accumulate.
[[noreturn]] void refuse_second_backward(Sharding sharding, bool offload);
// step() after backwards with sync off only (no synchronised backward since
// zero_grad()): std::logic_error naming accumulate, for every row.
[[noreturn]] void refuse_unsynced_step(Sharding sharding, bool offload);
// set_sync(false) after this step's synchronised backward: std::logic_error
// naming accumulate, for every row.
[[noreturn]] void refuse_late_sync_off();

struct DataParallelOptions {
  Sharding sharding = Sharding::none;
  int64_t bucket_cap_bytes = 25 * 1024 * 1024;  // PyTorch DDP's bucket_cap_mb = 25
  // The first bucket (the last layers, whose gradients backward produces
  // first) is capped lower so communication starts early, as DDP's
  // _DEFAULT_FIRST_BUCKET_BYTES = 1 MiB.
  int64_t first_bucket_cap_bytes = 1024 * 1024;
  double lr = 5e-5;                              // Adam, as the reference (no weight decay)
  bool offload = false;                          // ZeRO-Offload (sharded and zero2 only)
  // Micro-batches per optimizer step (accumulate=K; set_sync drives them):
  // only the memory model reads it (zero2 keeps full gradients meanwhile).
  int64_t accumulate = 1;
};

// What the training loop and the report need of a data-parallel strategy:
// DataParallel (ddp, sharded, zero2, their offload) and FullyShardedUnits
// (zero3, scenarios/parallel/fully_sharded.h).
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // Every rank starts from `root`'s parameters.
  virtual void broadcast_parameters(int root = 0) = 0;
  virtual void zero_grad() = 0;
  // After every loss.backward(): whatever collective the hooks did not
  // issue, and a wait for all of them; then local_grads() hold the average
  // over ranks. With sync off (accumulating) no collective: whatever the
  // backward left unfinished on this rank (zero3: a unit whose parameters
  // did not all get a gradient) is added to the step's gradients.
  virtual void finish_gradient_sync() = 0;
  // What this rank's optimizer reads (loss scaling unscales and checks these).
  virtual std::vector<torch::Tensor> local_grads() const = 0;
  // Adam on this rank's part (found_inf > 0 skips it on the device), then
  // whatever makes the parameters whole again where the strategy needs it.
  // std::logic_error naming accumulate where a backward with sync off ran
  // since zero_grad() and none with sync on (and its finish_gradient_sync)
  // followed: the step would use unreduced (ddp: ranks diverge) or the last
  // step's (zero2, zero3: shard gradients) gradients.
  virtual void step(const torch::Tensor& found_inf = {}) = 0;
  // Evaluation: what a rank's first evaluation batch does collectively, for
  // a rank that has no batch (a split with fewer examples than ranks); called
  // where every rank meets, before evaluation's sum. Nothing for ddp, sharded
  // and zero2, whose evaluation has no collective of its own.
  virtual void join_evaluation() {}
  // Training resumes: whatever evaluation kept for its pass goes now, before
  // the training phase's memory is counted (zero3 frees every unit it kept
  // whole). Nothing for ddp, sharded and zero2. Local: no collective.
  virtual void end_evaluation() {}
  // Gradient accumulation (accumulate=K; DDP's no_sync, Lightning's
  // no_backward_sync, DeepSpeed's gradient_accumulation_steps). With sync
  // off, a backward's gradients stay on this rank, added to what the
  // backwards since zero_grad() left there (no collective); the next
  // backward with sync on (the K-th micro-batch's) reduces the sum once, and
  // finish_gradient_sync() then holds the average over ranks of every
  // micro-batch's gradients. Sync is on after construction; zero_grad() does
  // not change it. A second backward with sync on is still refused
  // (refuse_second_backward), and so is turning sync off after one
  // (refuse_late_sync_off).
  virtual void set_sync(bool on) = 0;
  virtual bool sync() const = 0;

  virtual Sharding sharding() const = 0;
  virtual bool offloaded() const = 0;
  virtual Communicator& comm() = 0;
  virtual int64_t bucket_cap_bytes() const = 0;
  virtual std::size_t bucket_count() const = 0;  // buckets, or units (zero3)
  virtual int64_t optimizer_state_bytes() const = 0;
  virtual std::string optimizer_label() const = 0;
  virtual int64_t gradient_bytes() const = 0;   // gradient storage this rank keeps between steps
  virtual int64_t staging_bytes() const = 0;    // gradient copies in flight during backward (peak)
  virtual int64_t parameter_bytes() const = 0;  // parameter storage kept on the device between steps
  virtual int64_t host_bytes() const = 0;       // offload: master shards, their gradients and Adam's state
  virtual int64_t offload_bytes_per_step() const = 0;
  virtual double offload_wait_s() const = 0;
  // The model's parameters (elements, no padding).
  virtual int64_t parameter_count() const = 0;

  // What a rank's device will hold for the model's state at its peak in a
  // phase, modelled from this strategy's layout (what max_device_bytes
  // checks): the parameters, gradients and optimizer state kept between
  // steps (the optimizer's on the host when offloaded), plus in training
  // the staging of a step and zero3's units gathered at a time, in
  // evaluation zero3's every unit (gathered once, kept for the pass).
  virtual DeviceBytes device_bytes_needed(MemoryPhase phase) const = 0;
  // The worst phase's (the one a device of that size must hold).
  DeviceBytes device_bytes_needed() const;
  // Measured: the bytes of this strategy's device tensors alive now
  // (storages: parameters, gradients, optimizer state, gathered units,
  // staging; the offloaded optimizer's are host bytes, not counted).
  virtual int64_t held_bytes() const = 0;
  // Where the hooks report held_bytes() at the strategy's peaks (a row sets
  // it; nullptr = not measured). `extra`: bytes of a local copy alive then.
  HeldMemory* memory = nullptr;
  void note_held(int64_t extra = 0) const {
    if (memory != nullptr && memory->tracks_tensors()) memory->sample(held_bytes() + extra);
  }

 protected:
  DeviceBytes kept_bytes() const;  // parameters, gradients, optimizer state (device)
};

class DataParallel : public GradientSync {
 public:
  // params: the model's parameters (fp32, on the communicator's device). They
  // are re-pointed into the bucket buffers; broadcast_parameters() then makes
  // every rank start from rank 0's values.
  DataParallel(std::vector<torch::Tensor> params, std::shared_ptr<Communicator> comm,
               DataParallelOptions options);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  void broadcast_parameters(int root = 0) override;
  void zero_grad() override;
  // After loss.backward(): issues any bucket the hooks did not (unused
  // parameters) and waits for every collective. Then local_grads() hold the
  // average over ranks.
  void finish_gradient_sync() override;
  // What this rank's optimizer reads: ddp every bucket, sharded its chunk of
  // each bucket's averaged gradients, zero2 its reduced chunks. Loss scaling
  // unscales and checks these.
  std::vector<torch::Tensor> local_grads() const override;
  // Adam on this rank's part, then (sharded, zero2) all-gather of the
  // parameters. found_inf (0-dim, on the device, equal on all ranks): > 0
  // skips the update on the device.
  void step(const torch::Tensor& found_inf = {}) override;
  // Sync off: backwards add into the local gradients, no hook counts or
  // issues anything (see the header comment); on: the next backward reduces.
  // Turning it off after this step's synchronised backward is refused.
  void set_sync(bool on) override;
  bool sync() const override { return sync_; }

  Sharding sharding() const override { return options_.sharding; }
  Communicator& comm() override { return *comm_; }
  int64_t bucket_cap_bytes() const override { return options_.bucket_cap_bytes; }
  std::size_t bucket_count() const override { return buckets_.size(); }
  int64_t optimizer_state_bytes() const override;
  // What steps: "adam/<kernel>, flat buckets" (ddp) or "..., this rank's shard".
  std::string optimizer_label() const override;
  int64_t gradient_bytes() const override;
  int64_t staging_bytes() const override;   // zero2: bucket copies in flight during backward (at most 2)
  int64_t parameter_bytes() const override; // flat buffers, padding included
  bool offloaded() const override { return options_.offload; }
  // Host memory the offload keeps: the fp32 master shard, its gradient
  // staging and Adam's state (0 without offload).
  int64_t host_bytes() const override;
  int64_t offload_bytes_per_step() const override;  // device-to-host gradients + host-to-device parameters
  double offload_wait_s() const override;           // host time blocked in those copies
  int64_t parameter_count() const override;
  // Training: zero2's backward holds a bucket's full gradients (and the next
  // bucket's, which may arrive first), its staging copy and the previous
  // bucket's in flight; sharded and zero2's step the copies of this rank's
  // chunks it all-gathers from (whichever is larger).
  DeviceBytes device_bytes_needed(MemoryPhase phase) const override;
  using GradientSync::device_bytes_needed;
  int64_t held_bytes() const override;
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
  std::vector<char> arrived_;           // param -> its gradient arrived since zero_grad()
  bool synced_ = false;                 // finish_gradient_sync() ran with sync on since zero_grad()
  bool sync_ = true;                    // set_sync: off = accumulate locally
  bool local_only_ = false;             // a gradient arrived with sync off since zero_grad()
  std::size_t next_launch_ = 0;         // buckets are issued strictly in order
  std::size_t issued_in_backward_ = 0;
  std::unique_ptr<FusedAdam> adam_;             // on the device (no offload)
  std::unique_ptr<HostOptimizer> host_;         // offload
  std::vector<torch::Tensor> shards_;           // what Adam steps: this rank's part of each bucket
  int64_t max_staging_ = 0;
};

// The optimizer step under loss scaling (16-mixed), as PyTorch's
// ShardedGradScaler does it: unscale and check this rank's gradients, make
// every rank agree on a skip (MAX; sharded ranks saw different chunks), step
// (skipped on the device), update the scale. Returns 1 if skipped, else 0
// (0-dim float on the device: add it up, read it once).
torch::Tensor scaled_step(GradientSync& dp, GradScaler& scaler);

}  // namespace ftb::dist
