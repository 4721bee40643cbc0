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

void fill_distributed(ScenarioResult& r, const dist::GradientSync& dp, dist::Communicator& comm,
                      const LoopResult& loop) {
  auto& d = r.distributed;
  d.backend = comm.backend();
  d.strategy = to_string(dist::strategy_of(dp.sharding(), dp.offloaded()));
  d.bucket_cap_bytes = dp.bucket_cap_bytes();
  d.buckets = static_cast<int64_t>(dp.bucket_count());
  d.collective_wait_s = comm.wait_s();
  d.optimizer_state_bytes_per_rank = dp.optimizer_state_bytes();
  d.grad_bytes_per_rank = dp.gradient_bytes();
  d.grad_staging_bytes = dp.staging_bytes();
  d.per_rank_samples_per_s = loop.train_time_s > 0 ? loop.rank_train_samples / loop.train_time_s : 0;
  d.comm_fallback = comm.fallback();
  d.launcher = to_string(comm.env().launcher);
  d.hosts = comm.hosts();
  d.nodes = dist::node_count(d.hosts);
  d.error_handling = comm.error_handling();
  d.param_bytes_per_rank = dp.parameter_bytes();
  d.host_bytes_per_rank = dp.host_bytes();
  d.offload_bytes_per_step = dp.offload_bytes_per_step();
  d.offload_wait_s = dp.offload_wait_s();
  const auto steps = static_cast<int64_t>(std::max<std::size_t>(1, loop.steps.size()));
  for (const auto& [name, bytes] : comm.bytes_by_collective()) d.collective_bytes_per_step[name] = bytes / steps;
  if (dp.offloaded() && !comm.device().is_cuda())
    r.extra["offload_note"] = "the device is the host here: the offload's copies are host to host";
  r.extra["device_bytes_needed"] = dp.device_bytes_needed();  // the state a rank's device holds at its peak
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
  dist::DataParallelOptions o;
  o.sharding = sharding;
  o.offload = offload;
  o.bucket_cap_bytes = static_cast<int64_t>(c.bucket_mb * 1024 * 1024);
  o.lr = c.lr;
  const auto sync = dist::make_gradient_sync(model, comm, o);
  dist::GradientSync& dp = *sync;
  // A device budget (max_device_bytes): the row fails as a device of that size would.
  const int64_t needed = dp.device_bytes_needed();
  if (c.max_device_bytes > 0 && needed > c.max_device_bytes)
    throw std::runtime_error(
        "does not fit max_device_bytes=" + std::to_string(c.max_device_bytes) + ": a rank needs " +
        std::to_string(needed) + " bytes (parameters " + std::to_string(dp.parameter_bytes()) + ", gradients " +
        std::to_string(dp.gradient_bytes()) + ", optimizer state " +
        std::to_string(dp.offloaded() ? 0 : dp.optimizer_state_bytes()) + ", gathered units " +
        std::to_string(dp.transient_bytes()) + ")");
  dp.broadcast_parameters(0);  // every rank starts from rank 0's weights
  std::unique_ptr<GradScaler> scaler;
  if (precision == Precision::fp16_mixed) scaler = std::make_unique<GradScaler>();
  auto skipped = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));

  RunLoaders loaders(w, c, comm->rank(), comm->size());
  reset_peak_memory(device);
  const auto forward = autocast_forward(model, device, precision);  // training's and evaluation's
  auto step = [&](const Batch& b) {
    {
      PhaseScope phase(Phase::optimizer);
      dp.zero_grad();
    }
    auto [loss, correct] = forward(b);
    // Buckets are all-reduced (reduce-scattered) from hooks during backward.
    {
      PhaseScope phase(Phase::backward);
      (scaler ? scaler->scale(loss) : loss).backward();
    }
    {
      PhaseScope phase(Phase::grad_comm);  // what did not overlap backward
      dp.finish_gradient_sync();
    }
    PhaseScope phase(Phase::optimizer);
    if (scaler) skipped += dist::scaled_step(dp, *scaler);
    else dp.step();
    return StepOutput{loss.detach(), correct};
  };
  auto options = loop_options(c, name, device);
  options.sum_across_ranks = sum_over(*comm, dp);
  comm->reset_wait();
  auto loop = run_fine_tuning(model, loaders.refs(), options, step, ctx.callbacks, forward);
  auto r = result_from_loop(name, loop, device, precision, dp.optimizer_label());
  fill_distributed(r, dp, *comm, loop);
  r.skipped_steps = static_cast<int64_t>(skipped.item<float>());
  if (scaler) r.extra["loss_scale_final"] = scaler->scale_value();
  return r;
}

}  // namespace ftb
