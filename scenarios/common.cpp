#include "scenarios/common.h"

#include <algorithm>

#include "core/model/attention.h"
#include "core/train/autocast.h"
#include "core/measure/device.h"

namespace ftb {

LoopOptions loop_options(const RunConfig& c, const std::string& scenario, const torch::Device& device) {
  LoopOptions o;
  o.scenario = scenario;
  o.epochs = c.epochs;
  o.max_steps_per_epoch = c.max_steps;
  o.eval_max_batches = c.eval_max_batches;
  o.warmup_steps = c.warmup_steps;
  o.accumulate = c.accumulate;
  o.device = device;
  return o;
}

RunLoaders::RunLoaders(const Workload& w, const RunConfig& c) : RunLoaders(w, c, 0, 1) {}

namespace {
LoaderOptions sharded(LoaderOptions o, int rank, int world_size) {
  o.rank = rank;
  o.world_size = world_size;
  return o;
}
}  // namespace

RunLoaders::RunLoaders(const Workload& w, const RunConfig& c, int rank, int world_size)
    : train(w.train, sharded(w.train_loader_options(c), rank, world_size)),
      val(w.val, sharded(w.eval_loader_options(c), rank, world_size)),
      test(w.test, sharded(w.eval_loader_options(c), rank, world_size)) {}

std::string attention_backend(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision) {
  const auto& m = w.model_config;
  return sdpa_backend(device, autocast_dtype(precision), c.batch_size, m.n_heads, c.max_length,
                      m.dim / std::max<int64_t>(1, m.n_heads), m.attention_dropout);
}

ScenarioResult result_from_loop(const std::string& scenario, const LoopResult& loop, const torch::Device& device,
                                Precision precision, const std::string& optimizer) {
  ScenarioResult r;
  r.scenario = scenario;
  r.status = Status::ok;
  r.device = device.str();
  r.precision = precision;
  r.optimizer = optimizer;
  r.wall_time_s = loop.wall_time_s;
  r.train_samples_per_s = loop.train_time_s > 0 ? loop.train_samples / loop.train_time_s : 0;
  r.train_tokens_per_s = loop.train_time_s > 0 ? loop.train_tokens / loop.train_time_s : 0;
  r.train_samples = loop.train_samples;
  r.val_acc = loop.epochs.empty() ? 0 : loop.epochs.back().val_acc;
  r.test_acc = loop.test.acc;
  r.test_loss = loop.test.loss;
  r.epochs = loop.epochs;
  r.steps = loop.steps;
  r.peak_bytes = peak_memory_bytes(device, &r.peak_bytes_source);
  if (const DeviceMemoryUse use = device_memory_use(device); use.peak_reserved_bytes >= 0) {
    // An OOM comes from reserved and context memory, not the allocated peak alone.
    r.extra["peak_reserved_bytes"] = use.peak_reserved_bytes;
    r.extra["device_used_bytes_at_end"] = use.device_used_bytes;
  }
  r.step_ms_median = loop.step_ms_median;
  r.loader_wait_s = loop.loader_wait_s;
  r.phases = loop.phases;
  double real = 0, padded = 0;
  for (const auto& s : loop.steps) {
    real += static_cast<double>(s.tokens);
    padded += static_cast<double>(s.samples * s.seq_len);
  }
  r.real_token_share = padded > 0 ? real / padded : 0;
  RepeatSample s;
  s.wall_time_s = r.wall_time_s;
  s.train_samples_per_s = r.train_samples_per_s;
  s.train_tokens_per_s = r.train_tokens_per_s;
  s.val_acc = r.val_acc;
  s.test_acc = r.test_acc;
  s.test_correct = loop.test.correct;
  s.peak_bytes = r.peak_bytes;
  s.step_ms_median = r.step_ms_median;
  s.train_samples = r.train_samples;
  s.steady_samples_per_s = loop.steady_samples_per_s;
  // Warm-up checked, not assumed: a first epoch much slower than the rest
  // (one-time setup the warm-up pass missed) is flagged, with the ratio.
  if (loop.epochs.size() >= 2) {
    std::vector<double> later;
    for (size_t i = 1; i < loop.epochs.size(); ++i) later.push_back(loop.epochs[i].time_s);
    const double rest = median(later);
    if (rest > 0 && loop.epochs[0].time_s > 1.5 * rest)
      r.extra["slow_first_epoch"] = {{"ratio", loop.epochs[0].time_s / rest},
                                     {"note", "the first epoch took more than 1.5x the median of the others: setup "
                                              "the warm-up pass did not cover is inside the timed loop"}};
  }
  r.repeats = {s};
  return r;
}

namespace {
// Parameters stay fp32 on the device in every precision (autocast casts
// inside the ops), so the optimizer is built on the moved parameters.
SequenceClassifier model_on(const Workload& w, const torch::Device& device) {
  auto model = w.make_model();
  model->to(device);
  return model;
}
}  // namespace

SingleProcess::SingleProcess(const Workload& w, const RunConfig& c, std::string name)
    : config(c),
      scenario(std::move(name)),
      device(resolve_device(c.device)),
      model(model_on(w, device)),
      adam_kernel(resolve_adam_kernel(c.adam, device)),
      adam(make_adam(model->parameters(), c.lr, adam_kernel)),
      optimizer(*adam),
      loaders(w, c) {
  reset_peak_memory(device);
}

LoopResult SingleProcess::fit(const StepFn& step, const ScenarioContext& ctx, const EvalForward& eval) {
  return run_fine_tuning(model, loaders.refs(), options(), step, ctx.callbacks, eval);
}

ScenarioResult SingleProcess::result(const LoopResult& loop, Precision precision) const {
  return result_from_loop(scenario, loop, device, precision, optimizer_label(adam_kernel));
}

ScenarioResult run_plain_loop(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                              const std::string& scenario, Precision precision) {
  if (precision == Precision::fp16_mixed)
    throw std::logic_error("run_plain_loop: fp16 needs loss scaling (amp.cpp), not the plain step");
  SingleProcess p(w, c, scenario);  // parameters stay fp32: autocast casts inside the ops
  const auto forward = autocast_forward(p.model, p.device, precision);
  auto step = [&](const Batch& b) { return train_step(p.optimizer, b, forward, c.accumulate); };
  return p.result(p.fit(step, ctx, forward), precision);
}

RunConfig with_bucketing(RunConfig c) {
  c.padding = Padding::longest;
  c.bucketing = true;
  return c;
}

}  // namespace ftb
