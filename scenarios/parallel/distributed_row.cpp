#include "scenarios/parallel/distributed_row.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/train/autocast.h"
#include "core/measure/device.h"
#include "core/train/grad_scaler.h"
#include "core/measure/phase_recorder.h"

namespace ftb {

torch::Device rank_device(const RunConfig& c, const DistEnv& env) {
  const auto d = resolve_device(c.device);
  if (!d.is_cuda()) return d;
  // One GPU per rank; a single process keeps the device it was given.
  return env.world_size == 1 ? d : cuda_device_of_rank(env.local_rank);
}

Precision resolve_precision(const std::optional<Precision>& setting, const torch::Device& device, Precision cpu_auto) {
  if (setting) return *setting;
  return device.is_cuda() ? Precision::fp16_mixed : cpu_auto;
}

std::string distributed_unavailable(const RunConfig& c, const std::optional<Precision>& precision_setting,
                                    Precision cpu_auto) {
  const auto device = resolve_device(c.device);
  std::string why;
  if (dist::backend_for(device, &why).empty()) return why;
  // One GPU per rank of this machine: under a launcher the ranks on this node
  // (several nodes bring their own GPUs), else all of them.
  const DistEnv env = dist_env_from_environment();
  const int local_ranks = env.launched ? env.local_world_size : c.world_size;
  if (device.is_cuda() && local_ranks > cuda_device_count() && !(env.launched && cuda_device_count() == 1))
    return "needs " + std::to_string(local_ranks) + " GPUs on this machine (one per rank), it has " +
           std::to_string(cuda_device_count());
  if (resolve_precision(precision_setting, device, cpu_auto) == Precision::fp16_mixed && !device.is_cuda())
    return "16-mixed (fp16 autocast + loss scaling) needs CUDA; on the CPU use bf16-mixed or 32";
  return "";
}

std::shared_ptr<dist::Communicator> join_group(const RunConfig& c, const DistEnv& env, const torch::Device& device,
                                               const std::string& name) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(c.dist_timeout_s * 1000));
  return dist::Communicator::create(env, device, timeout, name);
}

SumAcrossRanks sum_over(dist::Communicator& comm) {
  return [&comm](torch::Tensor& t) { comm.sum_in_place(t); };
}

SumAcrossRanks sum_over(dist::Communicator& comm, dist::GradientSync& dp) {
  return [&comm, &dp](torch::Tensor& t) {
    // Evaluation runs under no_grad (as FullyShardedUnits::before_unit tells
    // it apart); training's epoch sums do not, and gather nothing.
    if (!torch::GradMode::is_enabled()) dp.join_evaluation();
    comm.sum_in_place(t);
  };
}

RowPhases::RowPhases(dist::GradientSync& dp, dist::Communicator& comm)
    : dp_(dp), comm_(comm), memory_(comm.device()) {
  dp_.memory = &memory_;
}

RowPhases::~RowPhases() { dp_.memory = nullptr; }

std::vector<LoopCallback*> RowPhases::with(const std::vector<LoopCallback*>& callbacks) {
  auto all = callbacks;
  all.push_back(this);
  return all;
}

void RowPhases::close() {
  const auto& now = comm_.bytes_by_collective();
  if (phase_) {
    auto& t = traffic_[static_cast<std::size_t>(*phase_)];
    for (const auto& [name, bytes] : now) {
      const auto mark = bytes_mark_.find(name);
      const int64_t delta = bytes - (mark == bytes_mark_.end() ? 0 : mark->second);
      if (delta != 0) t.bytes[name] += delta;
    }
    t.wait_s += comm_.wait_s() - wait_mark_;
  }
  bytes_mark_ = now;
  wait_mark_ = comm_.wait_s();
}

void RowPhases::enter(dist::MemoryPhase p) {
  if (phase_ == p) return;
  close();
  phase_ = p;
  // What evaluation kept (zero3's whole units) goes before training's bytes
  // count: a CUDA peak reset with them alive would start training there.
  if (p == dist::MemoryPhase::training) dp_.end_evaluation();
  memory_.enter(p);
  // Evaluation starts from the state the steps keep (ddp, sharded and zero2
  // have no hook in evaluation; zero3's gathers sample as they go).
  if (p == dist::MemoryPhase::evaluation) dp_.note_held();
}

void RowPhases::finish() {
  close();
  phase_.reset();
  memory_.finish();
}

void check_device_budget(const dist::GradientSync& dp, int64_t max_device_bytes) {
  using dist::MemoryPhase;
  const auto training = dp.device_bytes_needed(MemoryPhase::training);
  const auto evaluation = dp.device_bytes_needed(MemoryPhase::evaluation);
  const bool eval_worse = evaluation.total() > training.total();
  const auto& worst = eval_worse ? evaluation : training;
  if (max_device_bytes <= 0 || worst.total() <= max_device_bytes) return;
  throw std::runtime_error("does not fit max_device_bytes=" + std::to_string(max_device_bytes) + ": a rank needs " +
                           std::to_string(worst.total()) + " bytes in " +
                           to_string(eval_worse ? MemoryPhase::evaluation : MemoryPhase::training) + " (" +
                           worst.describe() + "); training " + std::to_string(training.total()) + ", evaluation " +
                           std::to_string(evaluation.total()) + " (modelled from its layout)");
}

namespace {

// Each rank's held peaks, gathered (rank r's at 2r, 2r + 1): every rank calls it.
ScenarioResult::HeldPhases held_phases(const RowPhases& phases, const dist::GradientSync& dp,
                                       dist::Communicator& comm) {
  using dist::MemoryPhase;
  const auto& memory = phases.memory();
  auto peaks = torch::zeros({2 * comm.size()}, torch::kDouble);  // bytes below 2^53: exact
  peaks[2 * comm.rank()] = static_cast<double>(memory.peak(MemoryPhase::training));
  peaks[2 * comm.rank() + 1] = static_cast<double>(memory.peak(MemoryPhase::evaluation));
  comm.sum_in_place(peaks);
  ScenarioResult::HeldPhases out;
  out.source = memory.source();
  for (int rank = 0; rank < comm.size(); ++rank) {
    out.training.per_rank.push_back(static_cast<int64_t>(peaks[2 * rank].item<double>()));
    out.evaluation.per_rank.push_back(static_cast<int64_t>(peaks[2 * rank + 1].item<double>()));
  }
  out.training.modelled_bytes = dp.device_bytes_needed(MemoryPhase::training).total();
  out.evaluation.modelled_bytes = dp.device_bytes_needed(MemoryPhase::evaluation).total();
  return out;
}

// The gradient sync's options for a row of `sharding` (and offload), from the run's settings.
dist::DataParallelOptions data_parallel_options(const RunConfig& c, dist::Sharding sharding, bool offload) {
  dist::DataParallelOptions o;
  o.sharding = sharding;
  o.offload = offload;
  o.bucket_cap_bytes = static_cast<int64_t>(c.bucket_mb * 1024 * 1024);
  o.lr = c.lr;
  o.accumulate = c.accumulate;
  return o;
}

}  // namespace

void fill_distributed(ScenarioResult& r, const dist::GradientSync& dp, dist::Communicator& comm,
                      const LoopResult& loop, const RowPhases& phases) {
  auto& d = r.distributed;
  d.backend = comm.backend();
  d.strategy = to_string(dist::strategy_of(dp.sharding(), dp.offloaded()));
  d.bucket_cap_bytes = dp.bucket_cap_bytes();
  d.buckets = static_cast<int64_t>(dp.bucket_count());
  const auto& training = phases.traffic(dist::MemoryPhase::training);
  const auto& evaluation = phases.traffic(dist::MemoryPhase::evaluation);
  d.collective_wait_s = training.wait_s;
  d.evaluation_collective_bytes = evaluation.bytes;
  d.evaluation_collective_wait_s = evaluation.wait_s;
  d.optimizer_state_bytes_per_rank = dp.optimizer_state_bytes();
  d.grad_bytes_per_rank = dp.gradient_bytes();
  d.grad_staging_bytes = dp.staging_bytes();
  d.per_rank_samples_per_s = loop.train_time_s > 0 ? loop.rank_train_samples / loop.train_time_s : 0;
  d.comm_fallback = comm.fallback();
  d.launcher = to_string(comm.env().launcher);
  d.hosts = comm.hosts();
  d.nodes = dist::node_count(d.hosts);
  for (const auto& [name, mode] : comm.error_handling())
    d.error_handling[name] = {mode.value, to_string(mode.set_by)};
  if (const auto* units = dynamic_cast<const dist::FullyShardedUnits*>(&dp)) {  // zero3: what it gathered and reduced in
    d.gather_dtype = dist::dtype_name(units->precision().gather);
    d.reduce_dtype = dist::dtype_name(units->precision().reduce);
  }
  d.param_bytes_per_rank = dp.parameter_bytes();
  d.host_bytes_per_rank = dp.host_bytes();
  d.offload_bytes_per_step = dp.offload_bytes_per_step();
  d.offload_wait_s = dp.offload_wait_s();
  const auto steps = static_cast<int64_t>(std::max<std::size_t>(1, loop.steps.size()));
  for (const auto& [name, bytes] : training.bytes) d.collective_bytes_per_step[name] = bytes / steps;
  if (dp.offloaded() && !comm.device().is_cuda())
    r.extra["offload_note"] = "the device is the host here: the offload's copies are host to host";
  // What max_device_bytes checks: the worst phase's modelled bytes.
  r.extra["device_bytes_needed"] = dp.device_bytes_needed().total();
  r.parameter_count = dp.parameter_count();
  r.memory_phases = held_phases(phases, dp, comm);
  if (comm.device().is_cuda()) {
    // The phases reset the allocator's peak: the row's is their whole-row
    // maximum (the set-up before the loop included).
    r.peak_bytes = std::max(r.peak_bytes, phases.memory().row_peak());
    for (auto& s : r.repeats) s.peak_bytes = r.peak_bytes;
  }
  if (comm.size() == 1 && (dp.sharding() != dist::Sharding::none || dp.offloaded()))
    r.extra["sharding_note"] = "world size 1: nothing is sharded (every shard is the whole)";
  r.world_size = comm.size();
}

ScenarioInfo ranks_row(ScenarioInfo s, std::optional<Precision> RunConfig::*precision, Precision cpu_auto, RankRun run) {
  s.kind = RowKind::ranks;
  s.unavailable = [precision, cpu_auto](const RunConfig& c) { return distributed_unavailable(c, c.*precision, cpu_auto); };
  s.run = [run](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run(w, c, ctx, dist_env_or_world_of_one());
  };
  s.precision_of = [precision, cpu_auto](const RunConfig& c) {
    return resolve_precision(c.*precision, resolve_device(c.device), cpu_auto);
  };
  return s;
}

ScenarioResult run_data_parallel(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                                 dist::Sharding sharding, const DistEnv& env, bool offload) {
  const std::string name = to_string(dist::strategy_of(sharding, offload));
  const auto device = rank_device(c, env);
  const Precision precision = resolve_precision(c.dp_precision, device, Precision::fp32);
  auto comm = join_group(c, env, device, name + "/" + std::to_string(ctx.repeat));

  auto model = w.make_model();
  model->to(device);  // fp32 parameters in every precision
  const auto o = data_parallel_options(c, sharding, offload);
  const auto sync = dist::make_gradient_sync(model, comm, o, precision);  // zero3 gathers in its compute dtype
  dist::GradientSync& dp = *sync;
  // A device budget (max_device_bytes): the row fails as a device of that
  // size would, on its worst phase (evaluation's gathers and training's
  // staging included), before any training.
  check_device_budget(dp, c.max_device_bytes);
  dp.broadcast_parameters(0);  // every rank starts from rank 0's weights
  auto scaler = precision == Precision::fp16_mixed ? std::make_unique<GradScaler>() : nullptr;
  auto skipped = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));

  RunLoaders loaders(w, c, comm->rank(), comm->size());
  reset_peak_memory(device);
  const auto forward = autocast_forward(model, device, precision);  // training's and evaluation's
  auto step = [&](const Batch& b) {
    {
      PhaseScope phase(Phase::optimizer);
      dp.zero_grad();
    }
    // Buckets are all-reduced (reduce-scattered) from hooks during backward.
    // accumulate=K: the first K-1 micro-batches' backwards stay on this rank
    // (set_sync(false), DDP's no_sync), the K-th reduces their sum once; with
    // 16-mixed each micro-batch's loss is scaled, the sum unscaled once in
    // scaled_step.
    const auto out = accumulate_gradients(b, c.accumulate, forward, [&](const torch::Tensor& loss, bool last) {
      if (c.accumulate > 1) dp.set_sync(last);
      PhaseScope phase(Phase::backward);
      (scaler ? scaler->scale(loss) : loss).backward();
      // Sync off: no collective; zero3 adds what a unit with an unused parameter got.
      if (!last) dp.finish_gradient_sync();
    });
    {
      PhaseScope phase(Phase::grad_comm);  // what did not overlap backward
      dp.finish_gradient_sync();
    }
    PhaseScope phase(Phase::optimizer);
    if (scaler) skipped += dist::scaled_step(dp, *scaler);
    else dp.step();
    return out;
  };
  auto options = loop_options(c, name, device);
  options.sum_across_ranks = sum_over(*comm, dp);
  comm->reset_wait();
  RowPhases phases(dp, *comm);
  auto loop = run_fine_tuning(model, loaders.refs(), options, step, phases.with(ctx.callbacks), forward);
  phases.finish();
  auto r = result_from_loop(name, loop, device, precision, dp.optimizer_label());
  fill_distributed(r, dp, *comm, loop, phases);
  r.skipped_steps = static_cast<int64_t>(skipped.item<float>());
  if (scaler) r.extra["loss_scale_final"] = scaler->scale_value();
  return r;
}

}  // namespace ftb
