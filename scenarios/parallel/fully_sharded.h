// ZeRO-3 / FSDP's FULL_SHARD: each rank keeps 1/N of every parameter, its
// gradient and its Adam state, per unit of the model (the embeddings, each
// transformer block, the head: SequenceClassifierImpl::parameter_units()).
//   forward   a unit's parameters are all-gathered just before it computes
//             (UnitHooks::before_unit) and freed after it (storage resized to
//             0: autograd's saved references keep the storage object, which
//             the backward gather fills again), except the last unit's, which
//             backward needs at once; the next unit's all-gather is issued
//             before the current unit computes (prefetch).
//   backward  a hook on each unit's output fires when its gradient arrives,
//             just before the unit's backward: the unit is gathered again and
//             the unit before it prefetched; when every parameter of the unit
//             has its gradient (the accumulators' post-hooks), the gradients
//             are reduce-scattered into this rank's shard and the unit's
//             parameters and gradients freed.
//   step      Adam on the shards (on the device, or on the host with
//             options.offload: zero3_offload); nothing to gather until the
//             next forward.
//   evaluation (no grad): every unit gathered once at the first batch and
//             kept until training resumes (FSDP's summon_full_params), as
//             ranks may run different numbers of evaluation batches; a rank
//             with no batch at all joins those gathers in join_evaluation().
//             The row frees them all as training resumes (end_evaluation);
//             the next training forward's first unit does too (a backstop).
// One backward per zero_grad(): a unit is reduced once, when its ready count
// reaches its size, so a second backward's gradients would never be reduced.
// Gradient accumulation (accumulate=K) is not implemented: a second backward
// before zero_grad() throws (refuse_second_backward).
// Layout: per unit one flat buffer of its parameters, padded to a multiple of
// the world size; the parameters are views into it (their storage is the
// buffer's, so resizing it frees or restores every view); rank r owns chunk r.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/model/classifier.h"
#include "core/train/fused_adam.h"
#include "scenarios/parallel/communicator.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/host_optimizer.h"

namespace ftb::dist {

class FullyShardedUnits : public GradientSync, public UnitHooks {
 public:
  // The model's parameters (fp32, on the communicator's device) are
  // re-pointed into per-unit buffers and the model's unit hooks set to this
  // (unset again by the destructor). options.sharding is ignored (parameters).
  FullyShardedUnits(SequenceClassifier model, std::shared_ptr<Communicator> comm, DataParallelOptions options);
  ~FullyShardedUnits() override;
  FullyShardedUnits(const FullyShardedUnits&) = delete;
  FullyShardedUnits& operator=(const FullyShardedUnits&) = delete;

  void broadcast_parameters(int root = 0) override;
  void zero_grad() override;
  void finish_gradient_sync() override;
  std::vector<torch::Tensor> local_grads() const override;
  void step(const torch::Tensor& found_inf = {}) override;
  // Every unit gathered (gather_all) where the others gathered at their
  // first evaluation batch; nothing where this rank did so already.
  void join_evaluation() override;
  // Every unit evaluation kept whole freed (nothing before the set-up is
  // sharded): the row calls it as training resumes, before the training
  // phase's memory counts (on a GPU a peak reset with the whole model alive
  // would start training's figure at evaluation's).
  void end_evaluation() override;

  Sharding sharding() const override { return Sharding::parameters; }
  bool offloaded() const override { return static_cast<bool>(host_); }
  Communicator& comm() override { return *comm_; }
  int64_t bucket_cap_bytes() const override { return 0; }  // units, not buckets
  std::size_t bucket_count() const override { return units_.size(); }
  int64_t optimizer_state_bytes() const override;
  std::string optimizer_label() const override;
  int64_t gradient_bytes() const override;   // the shards' gradients
  int64_t staging_bytes() const override;    // peak of gradient copies in flight
  int64_t parameter_bytes() const override;  // the shards (what stays between steps)
  int64_t host_bytes() const override { return host_ ? host_->host_bytes() : 0; }
  int64_t offload_bytes_per_step() const override { return host_ ? host_->bytes_per_step() : 0; }
  double offload_wait_s() const override { return host_ ? host_->wait_s() : 0; }

  int64_t parameter_count() const override;

  // The most bytes of whole units' parameters alive at once (gathered) since
  // the set-up (which holds the whole model once, as a model loaded before
  // sharding).
  int64_t max_gathered_bytes() const { return max_gathered_; }
  // Each unit's bytes whole (padded to the world size), in forward order.
  std::vector<int64_t> unit_bytes() const;
  // Training, at its peak in backward (a unit's reduce): the unit and the
  // one below it (prefetched) whole, the unit's full gradients, the unit
  // above's copy in flight and either their copy or (before the wait that
  // makes room) the copy of the unit two above, for the worst unit. Evaluation:
  // every unit whole on top of the shards.
  DeviceBytes device_bytes_needed(MemoryPhase phase) const override;
  using GradientSync::device_bytes_needed;
  int64_t held_bytes() const override;
  // Every unit whole and kept so (to read the weights: a test, a checkpoint);
  // the next training forward frees them all at its first unit.
  void gather_all();

  // UnitHooks (called by the model's forward).
  void before_unit(std::size_t unit) override;
  torch::Tensor after_unit(std::size_t unit, torch::Tensor out) override;

  // Order of events when record_events is on (tests): "gather u", "forward u",
  // "forward-end u", "backward u", "reduce u".
  bool record_events = false;
  std::vector<std::string> events;

 private:
  struct Unit;
  void ensure_sharded();
  void issue_gather(std::size_t unit);
  void gather(std::size_t unit);  // whole on return
  void free_params(std::size_t unit);
  void on_grad_ready(std::size_t unit, std::size_t param);
  void reduce(std::size_t unit);
  void wait_reduce(std::size_t unit);
  void note(const std::string& what, std::size_t unit);

  SequenceClassifier model_;
  std::shared_ptr<Communicator> comm_;
  DataParallelOptions options_;
  std::vector<std::unique_ptr<Unit>> units_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::size_t> in_flight_;  // units whose reduce-scatter runs, oldest first
  std::vector<torch::Tensor> shards_, shard_grads_;
  std::unique_ptr<FusedAdam> adam_;
  std::unique_ptr<HostOptimizer> host_;
  bool sharded_ = false;
  int64_t gathered_ = 0, max_gathered_ = 0, staging_ = 0, max_staging_ = 0;
};

// The strategy options.sharding names: FullyShardedUnits for parameters
// (zero3), else DataParallel over the model's parameters (ddp, sharded,
// zero2), with or without offload. What the rows, Fabric and the tests build.
std::unique_ptr<GradientSync> make_gradient_sync(SequenceClassifier model, std::shared_ptr<Communicator> comm,
                                                 const DataParallelOptions& options);

}  // namespace ftb::dist
