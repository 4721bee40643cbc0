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
// One backward per zero_grad() with sync on: a unit is reduced once, when
// its ready count reaches its size, so a second backward's gradients would
// never be reduced; a second backward with sync on throws
// (refuse_second_backward, naming accumulate).
// Gradient accumulation (set_sync(false), FSDP's no_sync): a backward with
// sync off keeps each unit's gradients whole on this rank, added into an
// fp32 buffer of the whole unit (padded) as backward leaves it, with no
// collective; the next backward with sync on adds its own and
// reduce-scatters the sum once. That costs the whole unsharded gradients
// (4 bytes a parameter) from the first micro-batch to the K-th's reduce, as
// FSDP's no_sync does; the modelled training figure (what max_device_bytes
// checks) includes them where options.accumulate > 1 (or once sync has been
// turned off).
// Mixed precision (UnitPrecision, FSDP's MixedPrecision param_dtype /
// reduce_dtype): under bf16-mixed (and fp16-mixed) the fp32 shards stay the
// optimizer's master; a unit is gathered by casting this rank's shard to the
// compute dtype (a send buffer of one chunk) and all-gathering in that dtype,
// so the unit is held whole at 2 bytes a parameter, and its parameters
// compute in that dtype (autocast then has no weight cast to save for
// backward); their gradients (compute dtype) are copied into a staging
// buffer of the reduce dtype, reduce-scattered and land in the fp32 shard
// gradient. fp32: every buffer fp32, exactly as before.
// Layout: per unit one flat buffer of its parameters, padded to a multiple of
// the world size; the parameters are views into it (their storage is the
// buffer's, so resizing it frees or restores every view); rank r owns chunk r.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/measure/precision.h"
#include "core/model/classifier.h"
#include "core/train/fused_adam.h"
#include "scenarios/parallel/communicator.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/host_optimizer.h"

namespace ftb::dist {

// What a unit is gathered, held and computed in, and what its gradients are
// reduce-scattered in (FSDP's MixedPrecision(param_dtype, reduce_dtype)).
// The shards, their gradients and Adam's state are fp32 whatever these say.
struct UnitPrecision {
  torch::ScalarType gather = torch::kFloat;  // param_dtype
  torch::ScalarType reduce = torch::kFloat;  // reduce_dtype
};
// A row's precision: fp32 -> fp32 / fp32; bf16-mixed -> bf16 / fp32;
// fp16-mixed -> fp16 / fp32. The reduce dtype is fp32 in every precision:
// FSDP's default (reduce_dtype None) reduces in param_dtype and Lightning's
// FSDPPrecision in bf16 / fp16, but a sum over ranks in bf16 (8 bits of
// mantissa) is where mixed precision loses most; Megatron
// (grad_reduce_in_fp32), OLMo's "mixed" and FSDP2's documentation ("gradient
// reduction in full precision while using low precision for compute")
// reduce in fp32, as ddp's all-reduce of fp32 gradients does here. It costs
// fp32 staging (4 bytes a parameter of the unit being reduced).
UnitPrecision unit_precision(Precision precision);
// "fp32" | "bf16" | "fp16" (what the report records).
std::string dtype_name(torch::ScalarType t);

class FullyShardedUnits : public GradientSync, public UnitHooks {
 public:
  // The model's parameters (fp32, on the communicator's device) are
  // re-pointed into per-unit buffers (of precision.gather: the parameters'
  // dtype becomes it) and the model's unit hooks set to this (unset again by
  // the destructor). options.sharding is ignored (parameters).
  FullyShardedUnits(SequenceClassifier model, std::shared_ptr<Communicator> comm, DataParallelOptions options,
                    UnitPrecision precision = {});
  ~FullyShardedUnits() override;
  FullyShardedUnits(const FullyShardedUnits&) = delete;
  FullyShardedUnits& operator=(const FullyShardedUnits&) = delete;

  void broadcast_parameters(int root = 0) override;
  void zero_grad() override;
  // Sync on: units the hooks did not reduce, and a wait for every reduce.
  // Sync off: what a unit whose parameters did not all get a gradient
  // received is added to its buffer (else its next backward would be
  // refused as a second one); no collective. Called after every backward.
  void finish_gradient_sync() override;
  // Accumulation (see the top of this file). Local: no collective; every
  // rank must turn it the same way before the same backward. Turning it off
  // after a backward with sync on (before zero_grad()) throws, as
  // DataParallel's.
  void set_sync(bool on) override;
  bool sync() const override { return sync_; }
  const UnitPrecision& precision() const { return precision_; }
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
  // Each unit's bytes whole (padded to the world size, in the gather dtype),
  // in forward order.
  std::vector<int64_t> unit_bytes() const;
  // Training, at its peak in backward (a unit's reduce): the unit and the
  // one below it (prefetched, with its send buffer under mixed precision)
  // whole, the unit's full gradients (compute dtype), the unit above's copy
  // (reduce dtype) in flight and either their copy or (before the wait that
  // makes room) the copy of the unit two above, for the worst unit; with
  // accumulate > 1 (or once sync was off), every unit's fp32 sum too.
  // Evaluation: every unit whole (and, under mixed precision, every send
  // buffer, issued together) on top of the shards.
  DeviceBytes device_bytes_needed(MemoryPhase phase) const override;
  using GradientSync::device_bytes_needed;
  int64_t held_bytes() const override;
  // Every unit whole in the gather dtype and kept so (evaluation's pass);
  // the next training forward frees them all at its first unit. Under mixed
  // precision that is the compute dtype's rounding of the weights, not the
  // fp32 masters: readers use master_parameters().
  void gather_all();
  // The fp32 masters whole, one new tensor per model parameter (shaped as
  // it, in model->parameters() order), all-gathered from the shards: FSDP's
  // full state dict, to read the weights (a test, a checkpoint). A
  // collective (every rank calls it); the model's parameters are untouched.
  // On destruction the model's parameters are fp32 again (under mixed
  // precision the gathered values widened, or empty where a unit was
  // sharded): take the masters from here first.
  std::vector<torch::Tensor> master_parameters();

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
  std::vector<torch::Tensor> gather_masters();  // every unit's fp32 whole (padded), from the shards: a collective
  void issue_gather(std::size_t unit);
  void gather(std::size_t unit);  // whole on return
  void free_params(std::size_t unit);
  void on_grad_ready(std::size_t unit, std::size_t param);
  void accumulate(std::size_t unit);  // sync off: its gradients into its fp32 buffer
  void reduce(std::size_t unit);
  void wait_reduce(std::size_t unit);
  void note(const std::string& what, std::size_t unit);

  SequenceClassifier model_;
  std::shared_ptr<Communicator> comm_;
  DataParallelOptions options_;
  UnitPrecision precision_;
  std::vector<std::unique_ptr<Unit>> units_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::size_t> in_flight_;  // units whose reduce-scatter runs, oldest first
  std::vector<torch::Tensor> shards_, shard_grads_;
  std::unique_ptr<FusedAdam> adam_;
  std::unique_ptr<HostOptimizer> host_;
  bool sharded_ = false;
  bool sync_ = true, accumulated_ = false;  // accumulated_: sync was turned off once (the model counts its buffers)
  bool synced_ = false;      // finish_gradient_sync() ran with sync on since zero_grad()
  bool synced_grad_ = false;  // a gradient arrived with sync on since zero_grad()
  bool local_only_ = false;  // a gradient arrived with sync off since zero_grad()
  int64_t gathered_ = 0, max_gathered_ = 0, staging_ = 0, max_staging_ = 0;
};

// The strategy options.sharding names: FullyShardedUnits for parameters
// (zero3, in unit_precision(precision)), else DataParallel over the model's
// parameters (ddp, sharded, zero2: fp32 parameters, autocast casts), with or
// without offload. What the rows, Fabric and the tests build.
std::unique_ptr<GradientSync> make_gradient_sync(SequenceClassifier model, std::shared_ptr<Communicator> comm,
                                                 const DataParallelOptions& options,
                                                 Precision precision = Precision::fp32);

}  // namespace ftb::dist
