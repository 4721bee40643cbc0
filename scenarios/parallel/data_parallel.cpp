#include "scenarios/parallel/data_parallel.h"

#include <algorithm>
#include <stdexcept>

#include "core/base/errors.h"
#include "scenarios/parallel/grad_ready_hook.h"

namespace ftb::dist {

Sharding sharding_of(Strategy s) {
  switch (s) {
    case Strategy::ddp: return Sharding::none;
    case Strategy::sharded: return Sharding::optimizer;
    case Strategy::zero2:
    case Strategy::zero2_offload: return Sharding::gradients;
    case Strategy::zero3:
    case Strategy::zero3_offload: return Sharding::parameters;
  }
  throw std::logic_error("sharding_of: unknown strategy");
}

bool offloaded(Strategy s) { return s == Strategy::zero2_offload || s == Strategy::zero3_offload; }

Strategy strategy_of(Sharding sharding, bool offload) {
  for (const auto& [s, name] : Choices<Strategy>::names)
    if (sharding_of(s) == sharding && offloaded(s) == offload) return s;
  throw std::logic_error("strategy_of: no row shards " + to_string(sharding) + (offload ? " with offload" : ""));
}

namespace {
std::string row_name(Sharding sharding, bool offload) {
  return sharding == Sharding::optimizer && offload ? "sharded with offload" : to_string(strategy_of(sharding, offload));
}
}  // namespace

void refuse_unsynced_step(Sharding sharding, bool offload) {
  throw std::logic_error("an optimizer step after backwards with gradient sync off only (" + row_name(sharding, offload) +
                         "): the gradients were never reduced across ranks; with accumulate=K the K-th "
                         "micro-batch's backward runs with sync on (set_sync(true), outside "
                         "Fabric::no_backward_sync) before the step");
}

void refuse_second_backward(Sharding sharding, bool offload) {
  const std::string row = row_name(sharding, offload);
  throw std::logic_error("a second backward before zero_grad() with gradient sync on (" + row +
                         "): each would be reduced wrongly or not at all; for gradient accumulation set "
                         "accumulate=K (the step turns sync off for the first K-1 micro-batches: set_sync(false), "
                         "Fabric::no_backward_sync)");
}

void refuse_late_sync_off() {
  throw std::logic_error("set_sync(false) after this step's synchronised backward: turn sync off for the first "
                         "accumulate-1 micro-batches only (zero_grad() starts the next step)");
}

DeviceBytes GradientSync::kept_bytes() const {
  DeviceBytes b;
  b.parameters = parameter_bytes();
  b.gradients = gradient_bytes();
  b.optimizer = offloaded() ? 0 : optimizer_state_bytes();
  return b;
}

DeviceBytes GradientSync::device_bytes_needed() const {
  DeviceBytes worst;
  for (MemoryPhase p : kMemoryPhases)
    if (const DeviceBytes b = device_bytes_needed(p); b.total() > worst.total()) worst = b;
  return worst;
}

std::string to_string(Sharding s) {
  switch (s) {
    case Sharding::none: return "ddp";
    case Sharding::optimizer: return "sharded";
    case Sharding::gradients: return "zero2";
    case Sharding::parameters: return "zero3";
  }
  return "?";
}

struct DataParallel::Bucket {
  std::vector<std::size_t> params;  // indices into params_, in layout order
  std::vector<int64_t> offsets;     // element offset of each in the flat buffers
  int64_t numel = 0, padded = 0, chunk = 0;  // chunk = padded / world = one rank's shard
  torch::Tensor flat_params;  // (padded): the parameters are views into it
  torch::Tensor flat_grads;   // (padded) ddp/sharded: the gradients are views into it
  torch::Tensor shard_grads;  // (chunk) zero2: this rank's reduced gradients
  torch::Tensor staging;      // (padded) zero2: the bucket's gradients while they are reduced
  std::size_t ready = 0;
  Pending pending;
};

DataParallel::DataParallel(std::vector<torch::Tensor> params, std::shared_ptr<Communicator> comm,
                           DataParallelOptions options)
    : params_(std::move(params)), comm_(std::move(comm)), options_(options) {
  if (options_.bucket_cap_bytes <= 0 || options_.first_bucket_cap_bytes <= 0)
    throw std::invalid_argument("DataParallel: bucket caps must be > 0");
  if (options_.offload && options_.sharding == Sharding::none)
    throw std::invalid_argument("DataParallel: offload needs a sharded optimizer (sharded or zero2)");
  if (options_.sharding == Sharding::parameters)
    throw std::invalid_argument("DataParallel: zero3 shards parameters per unit (FullyShardedUnits)");
  torch::NoGradGuard no_grad;
  const int64_t world = comm_->size(), rank = comm_->rank();
  // Buckets over the parameters in reverse registration order.
  bucket_of_.assign(params_.size(), 0);
  for (std::size_t k = params_.size(); k-- > 0;) {
    const auto& p = params_[k];
    if (p.scalar_type() != torch::kFloat)
      throw std::invalid_argument("DataParallel: parameters must be float32 (autocast keeps them so)");
    const int64_t bytes = p.numel() * 4;
    const int64_t cap = buckets_.size() <= 1 ? std::min(options_.first_bucket_cap_bytes, options_.bucket_cap_bytes)
                                             : options_.bucket_cap_bytes;
    if (buckets_.empty() || (buckets_.back()->numel * 4 + bytes > cap && !buckets_.back()->params.empty()))
      buckets_.push_back(std::make_unique<Bucket>());
    auto& b = *buckets_.back();
    b.params.push_back(k);
    b.offsets.push_back(b.numel);
    b.numel += p.numel();
    bucket_of_[k] = buckets_.size() - 1;
  }
  const bool shard_grads = options_.sharding == Sharding::gradients;
  std::vector<torch::Tensor> adam_params;
  for (auto& bp : buckets_) {
    auto& b = *bp;
    b.padded = (b.numel + world - 1) / world * world;
    b.chunk = b.padded / world;
    const auto opts = params_[b.params.front()].options();
    b.flat_params = torch::zeros({b.padded}, opts);
    if (shard_grads) b.shard_grads = torch::zeros({b.chunk}, opts);
    else b.flat_grads = torch::zeros({b.padded}, opts);
    for (std::size_t j = 0; j < b.params.size(); ++j) {
      auto& p = params_[b.params[j]];
      auto view = b.flat_params.narrow(0, b.offsets[j], p.numel()).view(p.sizes());
      view.copy_(p);
      p.set_data(view);
      if (!shard_grads) p.mutable_grad() = b.flat_grads.narrow(0, b.offsets[j], p.numel()).view(p.sizes());
      else p.mutable_grad() = torch::Tensor();
    }
    adam_params.push_back(options_.sharding == Sharding::none ? b.flat_params
                                                              : b.flat_params.narrow(0, rank * b.chunk, b.chunk));
  }
  shards_ = adam_params;
  if (options_.offload) host_ = std::make_unique<HostOptimizer>(shards_, options_.lr);
  else adam_ = make_device_adam(adam_params, options_.lr, adam_params.front().device());
  // Hooks last: the parameters are final now.
  arrived_.assign(params_.size(), 0);
  for (std::size_t k = 0; k < params_.size(); ++k)
    accumulators_.push_back(on_grad_accumulated(params_[k], [this, k] { on_grad_ready(k); }));
}

DataParallel::~DataParallel() {
  // Never leave a collective running on buffers we are about to free.
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    try {
      release(b);
    } catch (...) {
    }
  }
}

void DataParallel::broadcast_parameters(int root) {
  std::vector<Pending> pending;
  for (auto& b : buckets_) pending.push_back(comm_->broadcast(b->flat_params, root));
  for (auto& p : pending) comm_->wait(p);
  if (host_) host_->refresh(shards_);  // the host masters start from the broadcast values too
}

void DataParallel::zero_grad() {
  torch::NoGradGuard no_grad;
  for (auto& b : buckets_) {
    if (b->flat_grads.defined()) b->flat_grads.zero_();
    b->ready = 0;
  }
  issued_in_backward_ = 0;
  std::fill(arrived_.begin(), arrived_.end(), 0);
  synced_ = false;
  local_only_ = false;
  if (options_.sharding == Sharding::gradients)
    for (auto& p : params_) p.mutable_grad() = torch::Tensor();
  next_launch_ = 0;
}

void DataParallel::set_sync(bool on) {
  if (!on && (synced_ || std::find(arrived_.begin(), arrived_.end(), 1) != arrived_.end())) refuse_late_sync_off();
  // Sync on again: the accumulated gradients are whole here until the K-th
  // backward reduces them (zero2: every parameter's full gradient).
  if (on && !sync_) note_held();
  sync_ = on;
}

void DataParallel::on_grad_ready(std::size_t param) {
  // A gradient after the sync, or twice with sync on: a second backward (its
  // bucket was reduced already, or would be counted full with half its
  // gradients).
  if (synced_ || arrived_[param]) refuse_second_backward(options_.sharding, options_.offload);
  // Accumulating (set_sync(false)): autograd added the gradient where the
  // step's gradients are; the K-th backward counts and reduces.
  if (!sync_) {
    local_only_ = true;
    return;
  }
  arrived_[param] = 1;
  auto& b = *buckets_[bucket_of_[param]];
  ++b.ready;
  // Issue in bucket order only: every rank must issue the same sequence.
  while (next_launch_ < buckets_.size() && buckets_[next_launch_]->ready == buckets_[next_launch_]->params.size()) {
    launch(next_launch_++);
    ++issued_in_backward_;
  }
}

void DataParallel::launch(std::size_t index) {
  torch::NoGradGuard no_grad;
  auto& b = *buckets_[index];
  const double world = comm_->size();
  if (options_.sharding != Sharding::gradients) {
    b.flat_grads.div_(world);  // average = sum of (grad / world), as DDP does
    b.pending = comm_->all_reduce_sum(b.flat_grads);
    return;
  }
  // zero2: at most two buckets in flight, so the staging copies stay small.
  // Sampled before the release too: the bucket's full gradients with the two
  // previous buckets' copies in flight (more than after it where bucket
  // index - 2 is larger than this one's copy).
  if (index >= 2) {
    note_held();
    release(index - 2);
  }
  b.staging = torch::zeros({b.padded}, b.flat_params.options());
  note_held();  // the bucket's full gradients and its copy, the previous bucket's in flight
  for (std::size_t j = 0; j < b.params.size(); ++j) {
    auto& p = params_[b.params[j]];
    if (p.grad().defined()) {
      b.staging.narrow(0, b.offsets[j], p.numel()).copy_(p.grad().reshape({-1}));
      p.mutable_grad() = torch::Tensor();  // this rank no longer holds the full gradient
    }
  }
  b.staging.div_(world);
  int64_t in_flight = 0;
  for (auto& other : buckets_)
    if (other->staging.defined()) in_flight += other->staging.nbytes();
  max_staging_ = std::max(max_staging_, in_flight);
  b.pending = comm_->reduce_scatter_sum(b.shard_grads, b.staging);
}

void DataParallel::release(std::size_t index) {
  auto& b = *buckets_[index];
  if (b.pending.valid()) comm_->wait(b.pending);
  b.staging = torch::Tensor();
}

void DataParallel::finish_gradient_sync() {
  if (!sync_) return;  // accumulating: autograd added every gradient in place, nothing is left to finish
  while (next_launch_ < buckets_.size()) launch(next_launch_++);  // buckets with unused parameters
  note_held();  // ddp, sharded: every gradient, whatever autograd allocated besides the flat buffers
  for (std::size_t b = 0; b < buckets_.size(); ++b) release(b);
  synced_ = true;
}

std::vector<torch::Tensor> DataParallel::local_grads() const {
  std::vector<torch::Tensor> out;
  const int64_t rank = comm_->rank();
  for (const auto& b : buckets_) {
    switch (options_.sharding) {
      case Sharding::none: out.push_back(b->flat_grads); break;
      case Sharding::optimizer: out.push_back(b->flat_grads.narrow(0, rank * b->chunk, b->chunk)); break;
      case Sharding::gradients: out.push_back(b->shard_grads); break;
      case Sharding::parameters: break;  // FullyShardedUnits' business
    }
  }
  return out;
}

void DataParallel::step(const torch::Tensor& found_inf) {
  if (local_only_ && !synced_) refuse_unsynced_step(options_.sharding, options_.offload);
  torch::NoGradGuard no_grad;
  const int64_t rank = comm_->rank();
  if (host_) {
    host_->step(local_grads(), shards_, found_inf);  // the updated shards land before the all-gather's send
  } else {
    adam_->step(local_grads(), /*grad_scale=*/{}, found_inf);
  }
  if (options_.sharding == Sharding::none) return;
  // Every rank updated its chunk: gather the full parameters everywhere.
  std::vector<torch::Tensor> sends;
  std::vector<Pending> pending;
  for (auto& b : buckets_) {
    sends.push_back(b->flat_params.narrow(0, rank * b->chunk, b->chunk).clone());
    pending.push_back(comm_->all_gather(b->flat_params, sends.back()));
  }
  note_held(storage_bytes(sends));  // the step's peak: the chunks' copies on top of the state
  for (auto& p : pending) comm_->wait(p);
}

int64_t DataParallel::gradient_bytes() const {
  int64_t n = 0;
  for (const auto& b : buckets_) n += b->flat_grads.defined() ? b->flat_grads.nbytes() : b->shard_grads.nbytes();
  return n;
}

int64_t DataParallel::staging_bytes() const { return max_staging_; }

int64_t DataParallel::parameter_bytes() const {
  int64_t n = 0;
  for (const auto& b : buckets_) n += b->flat_params.nbytes();
  return n;
}

int64_t DataParallel::parameter_count() const {
  int64_t n = 0;
  for (const auto& p : params_) n += p.numel();
  return n;
}

DeviceBytes DataParallel::device_bytes_needed(MemoryPhase phase) const {
  DeviceBytes need = kept_bytes();
  if (phase == MemoryPhase::evaluation) return need;  // no collective, nothing gathered: the state as kept
  int64_t backward = 0, sends = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    const auto& b = *buckets_[i];
    // Bucket i's full gradients and the next bucket's (autograd may produce
    // those before bucket i is complete: the two embedding tables' arrive
    // together), the previous bucket's copy in flight and either i's copy or,
    // before bucket i - 2's release, that one's.
    const int64_t next = i + 1 < buckets_.size() ? buckets_[i + 1]->numel : 0;
    const int64_t copy = std::max(b.padded, i >= 2 ? buckets_[i - 2]->padded : 0);
    if (options_.sharding == Sharding::gradients)
      backward = std::max(backward, (b.numel + next + copy + (i > 0 ? buckets_[i - 1]->padded : 0)) * 4);
    if (options_.sharding != Sharding::none) sends += b.chunk * 4;
  }
  // zero2 accumulating (accumulate > 1): every parameter's full gradient is
  // alive from the first micro-batch until the K-th one's buckets reduce,
  // with the copies in flight then (a bucket's and the previous one's).
  if (options_.sharding == Sharding::gradients && options_.accumulate > 1) {
    int64_t full = 0, copies = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      full += buckets_[i]->numel;
      copies = std::max(copies, buckets_[i]->padded + (i > 0 ? buckets_[i - 1]->padded : 0));
    }
    backward = std::max(backward, (full + copies) * 4);
  }
  need.staging = std::max(backward, sends);
  return need;
}

int64_t DataParallel::held_bytes() const {
  std::vector<torch::Tensor> tensors;
  for (const auto& b : buckets_) {
    tensors.push_back(b->flat_params);
    tensors.push_back(b->flat_grads.defined() ? b->flat_grads : b->shard_grads);
    tensors.push_back(b->staging);
  }
  for (const auto& p : params_) tensors.push_back(p.grad());  // views into flat_grads count once
  return storage_bytes(tensors) + (host_ ? 0 : optimizer_state_bytes());
}

int64_t DataParallel::host_bytes() const { return host_ ? host_->host_bytes() : 0; }
int64_t DataParallel::offload_bytes_per_step() const { return host_ ? host_->bytes_per_step() : 0; }
double DataParallel::offload_wait_s() const { return host_ ? host_->wait_s() : 0; }
int64_t DataParallel::optimizer_state_bytes() const {
  return host_ ? host_->adam().state_bytes() : adam_ ? adam_->state_bytes() : 0;
}

torch::Tensor scaled_step(GradientSync& dp, GradScaler& scaler) {
  auto found_inf = scaler.unscale_grads_(dp.local_grads());
  if (dp.sharding() != Sharding::none) dp.comm().run(dp.comm().all_reduce_max(found_inf));
  dp.step(found_inf);
  scaler.update(found_inf);
  return (found_inf > 0).to(torch::kFloat);
}

std::string DataParallel::optimizer_label() const {
  if (host_) return ftb::optimizer_label(host_->adam(), "this rank's shard, on the host (offload)");
  return ftb::optimizer_label(*adam_, options_.sharding == Sharding::none ? "flat buckets" : "this rank's shard of the flat buckets");
}

}  // namespace ftb::dist
