#include "core/train/train_loop.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "core/measure/device.h"
#include "core/base/interrupt.h"
#include "core/measure/op_profiler.h"
#include "core/measure/phase_recorder.h"
#include "core/train/test_slowdown.h"

namespace ftb {

namespace {

// One epoch's training sums on this rank, before they are summed over ranks.
struct EpochSums {
  double loss = 0;
  int64_t correct = 0, samples = 0, steps = 0, tokens = 0;
};

LoopState initial_state(const Loaders& loaders, const LoopOptions& options) {
  LoopState state;
  state.scenario = options.scenario;
  state.epochs = options.epochs;
  state.steps_per_epoch = loaders.train.batches_per_epoch();
  if (options.max_steps_per_epoch > 0)
    state.steps_per_epoch = std::min(state.steps_per_epoch, options.max_steps_per_epoch);
  state.total_steps = state.steps_per_epoch * options.epochs;
  return state;
}

// One step with the measuring hooks around it: the data wait (timed on the
// host, outside the recorder's step), the profiling pass's window and the
// recorder's marks around the copy to the device and the step itself.
struct TakenStep {
  Batch host;   // as the loader gave it, kept for the iteration as before (its copy may be in flight)
  Batch batch;  // on the device
  StepOutput out;
  double wait_ms = 0;
};

std::optional<TakenStep> take_step(const Loaders& loaders, const LoopOptions& options, const StepFn& step,
                                   const LoopState& state, PhaseRecorder& recorder) {
  const auto t0 = Clock::now();
  std::optional<Batch> batch;
  {
    NvtxRange wait(phase_name(Phase::data_wait));
    batch = loaders.train.next();
  }
  if (!batch) return std::nullopt;
  TakenStep taken;
  taken.wait_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  taken.host = std::move(*batch);
  // A profiling pass (the sweep's, untimed) opens its window here.
  StepProfiler* profiler = active_step_profiler();
  if (profiler) profiler->before_step(state.step + 1);
  const auto step_start = Clock::now();
  recorder.begin_step();
  {
    PhaseScope copy(Phase::h2d_copy);
    taken.batch = to_device(taken.host, options.device);
  }
  taken.out = step(taken.batch);
  apply_test_slowdown(step_start);  // test-only (FTB_TEST_SLOWDOWN); nothing when unset
  recorder.end_step();
  if (profiler) profiler->after_step(state.step + 1);
  return taken;
}

// The epoch's one wait on the device: step times from the recorder's marks,
// losses (where they stayed on the device) from `losses`, summed into `sums`.
void read_epoch(PhaseRecorder& recorder, const torch::Tensor& losses, bool read_now, std::size_t first_step,
                EpochSums& sums, LoopResult& result) {
  const auto step_ms = recorder.collect_epoch(result.phases);
  std::vector<double> loss_values;
  if (!read_now) {
    auto all = losses.narrow(0, 0, sums.steps).to(torch::kCPU, torch::kDouble).contiguous();
    loss_values.assign(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
  }
  for (std::size_t i = first_step; i < result.steps.size(); ++i) {
    auto& rec = result.steps[i];
    rec.step_ms = step_ms[i - first_step];
    if (!read_now) rec.loss = loss_values[i - first_step];
    sums.loss += rec.loss;
  }
}

// The epoch's steps, each recorded in result.steps. Steps are timed by the
// recorder (CUDA events on a GPU, read once per epoch) and the loss and hits
// stay on the device until the epoch ends: the loop adds no host
// synchronisation inside an epoch (the reference's loop has none either). On
// a CPU a scalar is ready when the op returns, so the loss is read at once for
// the callbacks.
EpochSums train_epoch(const Loaders& loaders, const LoopOptions& options, const StepFn& step,
                      const std::vector<LoopCallback*>& callbacks, LoopState& state, PhaseRecorder& recorder,
                      LoopResult& result) {
  const bool read_now = options.device.is_cpu();
  const double not_read = std::numeric_limits<double>::quiet_NaN();
  const std::size_t first_step = result.steps.size();
  // The step's loss may live in a buffer the next step overwrites (a CUDA
  // graph's output): copied in stream order, read at the epoch's end.
  torch::Tensor losses;
  if (!read_now) losses = torch::empty({state.steps_per_epoch}, torch::TensorOptions().device(options.device));
  torch::Tensor correct_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(options.device));
  EpochSums sums;
  while (sums.steps < state.steps_per_epoch) {
    // Between steps, outside the timed region: a Ctrl-C ends the row here
    // (core/base/interrupt.h), never inside a step.
    throw_if_interrupted();
    std::optional<TakenStep> taken = take_step(loaders, options, step, state, recorder);
    if (!taken) break;
    StepRecord rec;
    rec.step = ++state.step;
    rec.epoch = state.epoch;
    rec.wait_ms = taken->wait_ms;
    result.phases[Phase::data_wait] += taken->wait_ms / 1000;
    rec.step_ms = read_now ? recorder.last_step_ms() : not_read;
    rec.loss = read_now ? taken->out.loss.item<double>() : not_read;
    if (!read_now) losses[sums.steps].copy_(taken->out.loss, /*non_blocking=*/true);
    rec.samples = taken->batch.labels.size(0);
    rec.tokens = taken->host.real_tokens;
    rec.seq_len = computed_seq_len(taken->host, options.accumulate);  // the micro-batches' widths with K > 1
    correct_sum += taken->out.correct;
    sums.samples += rec.samples;
    sums.tokens += rec.tokens;
    ++sums.steps;
    result.steps.push_back(rec);
    for (auto* cb : callbacks) cb->on_batch_end(state, rec);
  }
  read_epoch(recorder, losses, read_now, first_step, sums, result);
  sums.correct = correct_sum.item<int64_t>();
  const std::vector<StepRecord> epoch_steps(result.steps.begin() + static_cast<std::ptrdiff_t>(first_step),
                                            result.steps.end());
  for (auto* cb : callbacks) cb->on_epoch_steps(state, epoch_steps);
  return sums;
}

// The epoch's training loss and accuracy over all ranks (one rank: the same
// numbers); the run's sample and token counts grow by the epoch's.
void add_epoch_totals(const EpochSums& sums, const LoopOptions& options, EpochRecord& er, LoopResult& result) {
  result.rank_train_samples += sums.samples;
  auto totals = torch::tensor({sums.loss, static_cast<double>(sums.correct), static_cast<double>(sums.samples),
                               static_cast<double>(sums.steps), static_cast<double>(sums.tokens)},
                              torch::kDouble);
  if (options.sum_across_ranks) options.sum_across_ranks(totals);
  const double all_steps = totals[3].item<double>(), all_samples = totals[2].item<double>();
  er.train_loss = all_steps > 0 ? totals[0].item<double>() / all_steps : 0;
  er.train_acc = all_samples > 0 ? totals[1].item<double>() / all_samples : 0;
  result.train_samples += static_cast<int64_t>(all_samples);
  result.train_tokens += static_cast<int64_t>(totals[4].item<double>());
}

// A validation or test pass, timed into its phase (it ends by reading its
// sums, so the device is done) and marked as an NVTX range.
EvalResult timed_evaluation(SequenceClassifier& model, BatchLoader& loader, Phase phase, const LoopOptions& options,
                            const EvalForward& eval_forward, PhaseTimes& phases) {
  const auto start = Clock::now();
  EvalResult r;
  {
    NvtxRange range(phase_name(phase));
    // The test pass keeps its per-example hits (a paired test's input).
    r = evaluate(model, loader, options.device, options.eval_max_batches, eval_forward, options.sum_across_ranks,
                 /*per_example=*/phase == Phase::test);
  }
  phases[phase] += seconds_since(start);
  return r;
}

// The step-time median and the steady throughput, both after warm-up.
void add_steady_figures(const LoopOptions& options, LoopResult& result) {
  std::vector<double> timed;
  for (const auto& s : result.steps)
    if (s.step > options.warmup_steps) timed.push_back(s.step_ms);
  result.step_ms_median = median(timed);
  result.steady_samples_per_s =
      steady_throughput(result.steps, options.warmup_steps,
                        result.rank_train_samples > 0
                            ? static_cast<double>(result.train_samples) / static_cast<double>(result.rank_train_samples)
                            : 1);
}

}  // namespace

LoopResult run_fine_tuning(SequenceClassifier& model, Loaders loaders,
                           const LoopOptions& options, const StepFn& step,
                           const std::vector<LoopCallback*>& callbacks,
                           const EvalForward& eval_forward) {
  LoopResult result;
  LoopState state = initial_state(loaders, options);
  model->train();
  synchronize(options.device);
  const auto wall_start = Clock::now();
  for (auto* cb : callbacks) cb->on_train_start(state);
  PhaseRecorder recorder(options.device);
  ActivePhaseRecorder active(&recorder);
  result.phases.clock = recorder.clock();
  for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    state.epoch = epoch;
    for (auto* cb : callbacks) cb->on_epoch_start(state);
    loaders.train.start_epoch(epoch - 1);
    const auto epoch_start = Clock::now();
    const EpochSums sums = train_epoch(loaders, options, step, callbacks, state, recorder, result);
    EpochRecord er;
    er.epoch = epoch;
    er.time_s = seconds_since(epoch_start);
    result.train_time_s += er.time_s;
    add_epoch_totals(sums, options, er, result);
    const EvalResult val = timed_evaluation(model, loaders.val, Phase::validation, options, eval_forward, result.phases);
    er.val_loss = val.loss;
    er.val_acc = val.acc;
    for (auto* cb : callbacks) cb->on_validation_end(state, er);
    result.epochs.push_back(er);
    for (auto* cb : callbacks) cb->on_epoch_end(state, er);
  }
  synchronize(options.device);
  result.wall_time_s = seconds_since(wall_start);
  for (auto* cb : callbacks) cb->on_train_end(state);
  result.test = timed_evaluation(model, loaders.test, Phase::test, options, eval_forward, result.phases);
  result.loader_wait_s = loaders.train.wait_s();
  add_steady_figures(options, result);
  return result;
}

double steady_throughput(const std::vector<StepRecord>& steps, int64_t warmup_steps, double ranks_scale) {
  double samples = 0, ms = 0;
  for (const auto& s : steps)
    if (s.step > warmup_steps) {
      samples += static_cast<double>(s.samples);
      ms += s.step_ms + s.wait_ms;
    }
  return ms > 0 ? ranks_scale * samples * 1000 / ms : 0;
}

}  // namespace ftb
