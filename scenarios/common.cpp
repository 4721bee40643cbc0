#include "scenarios/common.h"

#include "core/device.h"

namespace ftb {

LoopOptions loop_options(const RunConfig& c, const std::string& scenario, const torch::Device& device) {
  LoopOptions o;
  o.scenario = scenario;
  o.epochs = c.epochs;
  o.max_steps_per_epoch = c.max_steps;
  o.eval_max_batches = c.eval_max_batches;
  o.warmup_steps = c.warmup_steps;
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

ScenarioResult result_from_loop(const std::string& scenario, const LoopResult& loop,
                                const torch::Device& device, const std::string& precision) {
  ScenarioResult r;
  r.scenario = scenario;
  r.status = Status::ok;
  r.device = device.str();
  r.precision = precision;
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
  r.step_ms_median = loop.step_ms_median;
  r.loader_wait_s = loop.loader_wait_s;
  RepeatSample s;
  s.wall_time_s = r.wall_time_s;
  s.train_samples_per_s = r.train_samples_per_s;
  s.train_tokens_per_s = r.train_tokens_per_s;
  s.val_acc = r.val_acc;
  s.test_acc = r.test_acc;
  s.peak_bytes = r.peak_bytes;
  r.repeats = {s};
  return r;
}

}  // namespace ftb
