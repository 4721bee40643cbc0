#include "core/train/train_loop.h"

#include <algorithm>
#include <chrono>

#include "core/train/device.h"
#include "core/text/interrupt.h"

namespace ftb {

LoopResult run_fine_tuning(SequenceClassifier& model, Loaders loaders,
                           const LoopOptions& options, const StepFn& step,
                           const std::vector<LoopCallback*>& callbacks,
                           const EvalForward& eval_forward) {
  LoopResult result;
  LoopState state;
  state.scenario = options.scenario;
  state.epochs = options.epochs;
  state.steps_per_epoch = loaders.train.batches_per_epoch();
  if (options.max_steps_per_epoch > 0)
    state.steps_per_epoch = std::min(state.steps_per_epoch, options.max_steps_per_epoch);
  state.total_steps = state.steps_per_epoch * options.epochs;

  model->train();
  synchronize(options.device);
  const auto wall_start = Clock::now();
  for (auto* cb : callbacks) cb->on_train_start(state);

  for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    state.epoch = epoch;
    for (auto* cb : callbacks) cb->on_epoch_start(state);
    loaders.train.start_epoch(epoch - 1);
    const auto epoch_start = Clock::now();
    double loss_sum = 0;
    int64_t correct = 0, samples = 0, steps = 0, epoch_tokens = 0;
    while (steps < state.steps_per_epoch) {
      // Between steps, outside the timed region: a Ctrl-C ends the row here
      // (core/text/interrupt.h), never inside a step.
      throw_if_interrupted();
      const auto t0 = Clock::now();
      auto batch = loaders.train.next();
      if (!batch) break;
      const auto t1 = Clock::now();
      auto b = to_device(*batch, options.device);
      StepOutput out = step(b);
      synchronize(options.device);  // the step is done when the device is
      const auto t2 = Clock::now();
      // Already synchronised: reading the scalars costs no extra wait.
      StepRecord rec;
      rec.step = ++state.step;
      rec.epoch = epoch;
      rec.wait_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      rec.step_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
      rec.loss = out.loss.item<double>();
      rec.samples = b.labels.size(0);
      rec.tokens = batch->real_tokens;
      rec.seq_len = b.input_ids.size(1);
      loss_sum += rec.loss;
      correct += out.correct.item<int64_t>();
      samples += rec.samples;
      epoch_tokens += rec.tokens;
      ++steps;
      result.steps.push_back(rec);
      for (auto* cb : callbacks) cb->on_batch_end(state, rec);
    }
    EpochRecord er;
    er.epoch = epoch;
    er.time_s = seconds_since(epoch_start);
    result.train_time_s += er.time_s;
    result.rank_train_samples += samples;
    // Over all ranks (one rank: the same numbers).
    auto totals = torch::tensor({loss_sum, static_cast<double>(correct), static_cast<double>(samples),
                                 static_cast<double>(steps), static_cast<double>(epoch_tokens)},
                                torch::kDouble);
    if (options.sum_across_ranks) options.sum_across_ranks(totals);
    const double all_steps = totals[3].item<double>(), all_samples = totals[2].item<double>();
    er.train_loss = all_steps > 0 ? totals[0].item<double>() / all_steps : 0;
    er.train_acc = all_samples > 0 ? totals[1].item<double>() / all_samples : 0;
    result.train_samples += static_cast<int64_t>(all_samples);
    result.train_tokens += static_cast<int64_t>(totals[4].item<double>());

    auto val = evaluate(model, loaders.val, options.device, options.eval_max_batches, eval_forward,
                        options.sum_across_ranks);
    er.val_loss = val.loss;
    er.val_acc = val.acc;
    for (auto* cb : callbacks) cb->on_validation_end(state, er);
    result.epochs.push_back(er);
    for (auto* cb : callbacks) cb->on_epoch_end(state, er);
  }
  synchronize(options.device);
  result.wall_time_s = seconds_since(wall_start);
  for (auto* cb : callbacks) cb->on_train_end(state);

  result.test = evaluate(model, loaders.test, options.device, options.eval_max_batches, eval_forward,
                         options.sum_across_ranks);
  result.loader_wait_s = loaders.train.wait_s();
  std::vector<double> timed;
  for (const auto& s : result.steps)
    if (s.step > options.warmup_steps) timed.push_back(s.step_ms);
  result.step_ms_median = median(timed);
  return result;
}

}  // namespace ftb
