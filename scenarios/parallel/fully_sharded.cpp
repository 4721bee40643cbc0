#include "scenarios/parallel/fully_sharded.h"

#include <ATen/native/Resize.h>

#ifdef FTB_WITH_CUDA
#include <ATen/native/cuda/Resize.h>
#endif

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/train/optimizer.h"
#include "scenarios/parallel/fully_sharded_unit.h"
#include "scenarios/parallel/grad_ready_hook.h"

namespace ftb::dist {
namespace {

// The storage under t (and every view of it) resized in place: 0 frees its
// memory, the full size allocates it again (contents undefined until written).
void resize_storage(const torch::Tensor& t, int64_t bytes) {
  c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
  if (static_cast<int64_t>(impl->nbytes()) == bytes) return;
#ifdef FTB_WITH_CUDA
  if (t.is_cuda()) {
    at::native::resize_bytes_cuda(impl, static_cast<size_t>(bytes));
    return;
  }
#endif
  at::native::resize_bytes_cpu(impl, static_cast<size_t>(bytes));
}

}  // namespace

UnitPrecision unit_precision(Precision precision) {
  UnitPrecision p;
  if (precision == Precision::bf16_mixed) p.gather = torch::kBFloat16;
  if (precision == Precision::fp16_mixed) p.gather = torch::kHalf;
  return p;
}

std::string dtype_name(torch::ScalarType t) {
  switch (t) {
    case torch::kFloat: return "fp32";
    case torch::kBFloat16: return "bf16";
    case torch::kHalf: return "fp16";
    default: return c10::toString(t);
  }
}

FullyShardedUnits::FullyShardedUnits(SequenceClassifier model, std::shared_ptr<Communicator> comm,
                                     DataParallelOptions options, UnitPrecision precision)
    : model_(std::move(model)), comm_(std::move(comm)), options_(options), precision_(precision) {
  torch::NoGradGuard no_grad;
  const int64_t world = comm_->size();
  const auto groups = model_->parameter_units();
  std::set<const c10::TensorImpl*> in_units, in_model;
  std::size_t count = 0;
  for (const auto& g : groups)
    for (const auto& p : g) in_units.insert(p.unsafeGetTensorImpl()), ++count;
  for (const auto& p : model_->parameters()) in_model.insert(p.unsafeGetTensorImpl());
  if (count != in_units.size() || in_units != in_model)
    throw std::invalid_argument("FullyShardedUnits: the model's units do not hold every parameter once");
  for (const auto& g : groups) {
    auto u = std::make_unique<Unit>();
    u->params = g;
    for (const auto& p : g) {
      if (p.scalar_type() != torch::kFloat)
        throw std::invalid_argument("FullyShardedUnits: parameters must be float32 (autocast keeps them so)");
      u->offsets.push_back(u->numel);
      u->numel += p.numel();
    }
    u->padded = (u->numel + world - 1) / world * world;
    u->chunk = u->padded / world;
    u->gather_size = static_cast<int64_t>(c10::elementSize(precision_.gather));
    const auto fp32 = g.front().options();
    // The fp32 whole the shards are taken from (under mixed precision kept
    // apart until sharded, so the master starts from the fp32 weights).
    auto master = torch::zeros({u->padded}, fp32);
    for (std::size_t j = 0; j < g.size(); ++j)
      master.narrow(0, u->offsets[j], g[j].numel()).copy_(g[j].reshape({-1}));
    if (precision_.gather == torch::kFloat) {
      u->full = master;
    } else {
      u->setup = master;
      u->full = master.to(precision_.gather);
    }
    for (std::size_t j = 0; j < g.size(); ++j) {
      auto p = g[j];
      // The parameter's storage (and dtype) is the unit's buffer from now on;
      // its gradient accumulator, made below, is for that dtype.
      p.set_data(u->full.narrow(0, u->offsets[j], p.numel()).view(p.sizes()));
      p.mutable_grad() = torch::Tensor();
    }
    u->whole = true;
    gathered_ += u->bytes();
    shards_.push_back(torch::zeros({u->chunk}, fp32));
    shard_grads_.push_back(torch::zeros({u->chunk}, fp32));
    units_.push_back(std::move(u));
  }
  max_gathered_ = gathered_;
  if (options_.offload) host_ = std::make_unique<HostOptimizer>(shards_, options_.lr);
  else adam_ = make_device_adam(shards_, options_.lr, shards_.front().device());
  for (std::size_t i = 0; i < units_.size(); ++i) {
    auto& u = *units_[i];
    u.arrived.assign(u.params.size(), 0);
    for (std::size_t j = 0; j < u.params.size(); ++j)
      accumulators_.push_back(on_grad_accumulated(u.params[j], [this, i, j] { on_grad_ready(i, j); }));
  }
  model_->unit_hooks = this;
}

FullyShardedUnits::~FullyShardedUnits() {
  model_->unit_hooks = nullptr;
  // Never leave a collective running on buffers about to go away.
  for (auto& u : units_) {
    try {
      if (u->gathering.valid()) comm_->wait(u->gathering);
      if (u->reducing.valid()) comm_->wait(u->reducing);
    } catch (...) {
    }
    // A unit left sharded has no storage: its parameters become empty fp32
    // tensors, so a later use fails on their shape instead of reading freed
    // memory (gather_all() first keeps the weights; master_parameters() are
    // the fp32 masters).
    torch::NoGradGuard no_grad;
    if (!u->whole) {
      for (auto& p : u->params) p.set_data(torch::empty({0}, p.options().dtype(torch::kFloat)));
    } else if (precision_.gather != torch::kFloat) {
      // fp32 parameters again, as the model was given: the set-up's fp32
      // whole where the unit was never sharded, else the gathered values.
      // That allocates: where it fails (a device out of memory, the row
      // unwinding from that very error), the unit's parameters become empty
      // as a sharded unit's, never an exception out of a destructor.
      for (std::size_t j = 0; j < u->params.size(); ++j) {
        auto& p = u->params[j];
        try {
          p.set_data(u->setup.defined() ? u->setup.narrow(0, u->offsets[j], p.numel()).view(p.sizes()).clone()
                                        : p.detach().to(torch::kFloat));
        } catch (...) {
          p.set_data(torch::empty({0}, p.options().dtype(torch::kFloat)));
        }
      }
    }
  }
}

void FullyShardedUnits::note(const std::string& what, std::size_t unit) {
  if (record_events) events.push_back(what + " " + std::to_string(unit));
}

void FullyShardedUnits::ensure_sharded() {
  if (sharded_) return;
  torch::NoGradGuard no_grad;
  const int64_t rank = comm_->rank();
  for (std::size_t i = 0; i < units_.size(); ++i) {
    auto& u = *units_[i];
    const auto& master = u.setup.defined() ? u.setup : u.full;
    shards_[i].copy_(master.narrow(0, rank * u.chunk, u.chunk));
    u.setup = torch::Tensor();
    free_params(i);
  }
  if (host_) host_->refresh(shards_);
  sharded_ = true;
  max_gathered_ = gathered_;  // from here on: what steps gather (the set-up held the whole model)
}

std::vector<torch::Tensor> FullyShardedUnits::gather_masters() {
  ensure_sharded();
  std::vector<torch::Tensor> out;
  std::vector<Pending> gathers;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    out.push_back(torch::empty({units_[i]->padded}, shards_[i].options()));
    gathers.push_back(comm_->all_gather(out.back(), shards_[i]));
  }
  for (auto& p : gathers) comm_->wait(p);
  return out;
}

std::vector<torch::Tensor> FullyShardedUnits::master_parameters() {
  torch::NoGradGuard no_grad;
  const auto masters = gather_masters();
  std::map<const c10::TensorImpl*, torch::Tensor> of;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const auto& u = *units_[i];
    for (std::size_t j = 0; j < u.params.size(); ++j)
      of[u.params[j].unsafeGetTensorImpl()] =
          masters[i].narrow(0, u.offsets[j], u.params[j].numel()).view(u.params[j].sizes());
  }
  std::vector<torch::Tensor> out;
  for (const auto& p : model_->parameters()) out.push_back(of.at(p.unsafeGetTensorImpl()));
  return out;
}

void FullyShardedUnits::broadcast_parameters(int root) {
  if (sharded_ && precision_.gather != torch::kFloat) {
    // The fp32 whole again (not the compute dtype's: the master keeps fp32).
    auto masters = gather_masters();
    for (std::size_t i = 0; i < units_.size(); ++i) units_[i]->setup = std::move(masters[i]);
  } else if (sharded_) {
    gather_all();
  }
  std::vector<Pending> pending;
  for (auto& u : units_) pending.push_back(comm_->broadcast(u->setup.defined() ? u->setup : u->full, root));
  for (auto& p : pending) comm_->wait(p);
  sharded_ = false;
  ensure_sharded();
}

void FullyShardedUnits::issue_gather(std::size_t i) {
  auto& u = *units_[i];
  if (u.whole || u.gathering.valid()) return;
  note("gather", i);
  resize_storage(u.full, u.bytes());
  gathered_ += u.bytes();
  max_gathered_ = std::max(max_gathered_, gathered_);
  if (precision_.gather == torch::kFloat) {
    u.gathering = comm_->all_gather(u.full, shards_[i]);
  } else {
    torch::NoGradGuard no_grad;
    u.send = shards_[i].to(precision_.gather);  // the master's chunk in the compute dtype
    u.gathering = comm_->all_gather(u.full, u.send);
  }
  note_held();
}

void FullyShardedUnits::gather(std::size_t i) {
  auto& u = *units_[i];
  if (u.whole) return;
  issue_gather(i);
  comm_->wait(u.gathering);
  u.gathering = Pending();
  u.send = torch::Tensor();
  u.whole = true;
}

void FullyShardedUnits::free_params(std::size_t i) {
  auto& u = *units_[i];
  if (!u.whole && !u.gathering.valid()) return;
  if (u.gathering.valid()) {  // never free under a collective writing into it
    comm_->wait(u.gathering);
    u.gathering = Pending();
    u.send = torch::Tensor();
  }
  resize_storage(u.full, 0);
  gathered_ -= u.bytes();
  u.whole = false;
}

void FullyShardedUnits::gather_all() {
  ensure_sharded();
  for (std::size_t i = 0; i < units_.size(); ++i) issue_gather(i);
  for (std::size_t i = 0; i < units_.size(); ++i) gather(i);
}

void FullyShardedUnits::join_evaluation() {
  // A rank that evaluated a batch holds every unit already (before_unit):
  // gather_all issues nothing there, so each rank issues the gathers once.
  gather_all();
}

void FullyShardedUnits::end_evaluation() {
  if (!sharded_) return;  // the set-up's whole model is sharded by ensure_sharded, not freed
  for (std::size_t i = 0; i < units_.size(); ++i) free_params(i);
}

void FullyShardedUnits::before_unit(std::size_t unit) {
  ensure_sharded();
  if (!torch::GradMode::is_enabled()) {
    // Evaluation: every unit gathered once, at the first batch, and kept
    // until training resumes (FSDP's summon_full_params): ranks may run
    // different numbers of evaluation batches (uneven shards), so no
    // collective may depend on the batch.
    gather_all();
    note("forward", unit);
    return;
  }
  // Training resumes after evaluation: the units it kept whole go now, not
  // one by one as the forward passes them (the whole model held meanwhile).
  // The row did so already (end_evaluation); this is the backstop for a
  // caller that did not (a test, Fabric).
  if (unit == 0) end_evaluation();
  gather(unit);
  // Prefetch: the next unit's all-gather runs while this one computes.
  if (unit + 1 < units_.size()) issue_gather(unit + 1);
  note("forward", unit);
}

torch::Tensor FullyShardedUnits::after_unit(std::size_t unit, torch::Tensor out) {
  note("forward-end", unit);
  const bool backward_follows = torch::GradMode::is_enabled() && out.requires_grad();
  if (backward_follows) {
    // Its gradient arrives just before the unit's own backward.
    out.register_hook([this, unit](const torch::Tensor& grad) {
      note("backward", unit);
      gather(unit);
      if (unit > 0) issue_gather(unit - 1);  // prefetch the unit backward meets next
      return grad;
    });
  }
  // Free after a training forward (the last unit's parameters are the first
  // backward needs); evaluation keeps them all (before_unit).
  if (backward_follows && unit + 1 < units_.size()) free_params(unit);
  return out;
}

void FullyShardedUnits::on_grad_ready(std::size_t unit, std::size_t param) {
  auto& u = *units_[unit];
  // After its reduce, or twice: a second backward, whose gradients would
  // pass the ready count and never be reduced (the step would use the first).
  if (u.reduced || u.arrived[param]) refuse_second_backward(Sharding::parameters, offloaded());
  u.arrived[param] = 1;
  (sync_ ? synced_grad_ : local_only_) = true;
  if (++u.ready < u.params.size()) return;
  if (sync_) reduce(unit);
  else accumulate(unit);
}

void FullyShardedUnits::accumulate(std::size_t unit) {
  torch::NoGradGuard no_grad;
  auto& u = *units_[unit];
  note("accumulate", unit);
  if (!u.accumulated.defined()) u.accumulated = torch::zeros({u.padded}, shards_[unit].options());
  note_held();  // the unit whole, its full gradients and the buffers of the units accumulated so far
  for (std::size_t j = 0; j < u.params.size(); ++j) {
    auto& p = u.params[j];
    if (p.grad().defined()) u.accumulated.narrow(0, u.offsets[j], p.numel()).add_(p.grad().reshape({-1}));
    p.mutable_grad() = torch::Tensor();
  }
  // The next micro-batch's backward counts afresh.
  u.ready = 0;
  std::fill(u.arrived.begin(), u.arrived.end(), 0);
  free_params(unit);  // the unit's backward is over
}

void FullyShardedUnits::reduce(std::size_t unit) {
  torch::NoGradGuard no_grad;
  auto& u = *units_[unit];
  note("reduce", unit);
  // Sampled before the wait too: the unit's full gradients with the two
  // units above's copies still in flight (more than after it where the
  // oldest copy is larger than this unit's).
  if (in_flight_.size() >= 2) note_held();
  while (in_flight_.size() >= 2) wait_reduce(in_flight_.front());  // at most two units' copies in flight
  // The copy: the micro-batches' sum where sync was off before (fp32: that
  // buffer itself), else zeros, in the reduce dtype.
  const bool summed = u.accumulated.defined();
  if (summed && precision_.reduce == torch::kFloat) u.staging = std::move(u.accumulated);
  else if (summed) u.staging = u.accumulated.to(precision_.reduce);
  else u.staging = torch::zeros({u.padded}, shards_[unit].options().dtype(precision_.reduce));
  note_held();  // the unit whole, its full gradients and their copy, the previous copy in flight: backward's peak
  u.accumulated = torch::Tensor();
  for (std::size_t j = 0; j < u.params.size(); ++j) {
    auto& p = u.params[j];
    if (p.grad().defined()) {
      auto into = u.staging.narrow(0, u.offsets[j], p.numel());
      if (summed) into.add_(p.grad().reshape({-1}));
      else into.copy_(p.grad().reshape({-1}));
    }
    p.mutable_grad() = torch::Tensor();  // this rank keeps only its shard's gradient
  }
  u.staging.div_(static_cast<double>(comm_->size()));  // the average, as DDP
  staging_ += u.staging.nbytes();
  max_staging_ = std::max(max_staging_, staging_);
  if (precision_.reduce == torch::kFloat) {
    u.reducing = comm_->reduce_scatter_sum(shard_grads_[unit], u.staging);
  } else {
    u.reduced_chunk = torch::empty({u.chunk}, u.staging.options());
    u.reducing = comm_->reduce_scatter_sum(u.reduced_chunk, u.staging);
  }
  in_flight_.push_back(unit);
  u.reduced = true;
  free_params(unit);  // every node that used them has run: the unit's backward is over
}

void FullyShardedUnits::wait_reduce(std::size_t unit) {
  auto& u = *units_[unit];
  if (u.reducing.valid()) comm_->wait(u.reducing);
  u.reducing = Pending();
  if (u.reduced_chunk.defined()) {  // the fp32 shard gradient from the reduce dtype's
    torch::NoGradGuard no_grad;
    shard_grads_[unit].copy_(u.reduced_chunk);
    u.reduced_chunk = torch::Tensor();
  }
  staging_ -= u.staging.defined() ? u.staging.nbytes() : 0;
  u.staging = torch::Tensor();
  in_flight_.erase(std::remove(in_flight_.begin(), in_flight_.end(), unit), in_flight_.end());
}

void FullyShardedUnits::zero_grad() {
  for (auto& u : units_) {
    u->ready = 0;
    u->reduced = false;
    std::fill(u->arrived.begin(), u->arrived.end(), 0);
    for (auto& p : u->params) p.mutable_grad() = torch::Tensor();
    u->accumulated = torch::Tensor();
  }
  synced_ = synced_grad_ = local_only_ = false;
}

void FullyShardedUnits::set_sync(bool on) {
  if (!on && (synced_ || synced_grad_)) refuse_late_sync_off();
  sync_ = on;
  if (!on) accumulated_ = true;
}

void FullyShardedUnits::finish_gradient_sync() {
  if (!sync_) {
    // Units whose parameters did not all get a gradient (the hooks added the
    // others'): what they got goes into their buffers too.
    for (std::size_t i = units_.size(); i-- > 0;)
      if (units_[i]->ready > 0) accumulate(i);
    for (std::size_t i = 0; i < units_.size(); ++i) free_params(i);
    return;
  }
  // Units the hooks did not reduce (a parameter without a gradient), last first, as backward would.
  for (std::size_t i = units_.size(); i-- > 0;)
    if (!units_[i]->reduced) reduce(i);
  while (!in_flight_.empty()) wait_reduce(in_flight_.front());
  for (std::size_t i = 0; i < units_.size(); ++i) free_params(i);
  synced_ = true;
}

std::vector<torch::Tensor> FullyShardedUnits::local_grads() const { return shard_grads_; }

void FullyShardedUnits::step(const torch::Tensor& found_inf) {
  // Else Adam would step on the last step's shard gradients (zero_grad does not clear them).
  if (local_only_ && !synced_) refuse_unsynced_step(Sharding::parameters, offloaded());
  torch::NoGradGuard no_grad;
  ensure_sharded();
  if (host_) host_->step(shard_grads_, shards_, found_inf);
  else adam_->step(shard_grads_, /*grad_scale=*/{}, found_inf);
}

std::unique_ptr<GradientSync> make_gradient_sync(SequenceClassifier model, std::shared_ptr<Communicator> comm,
                                                 const DataParallelOptions& options, Precision precision) {
  if (options.sharding == Sharding::parameters)
    return std::make_unique<FullyShardedUnits>(model, comm, options, unit_precision(precision));
  return std::make_unique<DataParallel>(model->parameters(), comm, options);
}

}  // namespace ftb::dist
