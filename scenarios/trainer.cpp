// trainer: the reference's Lightning Trainer run (step 2 of the table) on the
// core Trainer: ModelCheckpoint(monitor="val_acc", mode="max", save_top_k=1)
// restored for the test pass, CSVLogger, deterministic=True with
// seed_everything. Model, data, optimizer (Adam as baseline's, lr from the
// config) and step are baseline's, so the difference is the Trainer.
#include <optional>

#include "core/base/files.h"
#include "core/measure/device.h"
#include "core/train/trainer.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kTrainerName = "trainer";

// Lightning's log_every_n_steps for the per-step train_loss rows.
constexpr int64_t kLogEveryNSteps = 10;

// Deterministic mode's cost, measured before the run on a throwaway model and
// the first training batch: step time with it on vs off (see
// measure_deterministic_cost). Outside the wall time.
DeterministicCost probe_deterministic_cost(const Workload& w, const RunConfig& c, const torch::Device& device) {
  auto options = w.train_loader_options(c);
  options.prefetch = 0;
  BatchLoader loader(w.train, options);
  loader.start_epoch(0);
  auto batch = loader.next();
  if (!batch) return {};
  auto model = w.make_model();
  model->to(device);
  model->train();
  auto adam = make_adam(model->parameters(), c.lr, resolve_adam_kernel(c.adam, device));
  const auto b = to_device(*batch, device);
  return measure_deterministic_cost([&](const Batch& x) { return train_step(model, *adam, x, c.accumulate); }, b,
                                    device, w.seed);
}

ScenarioResult run_trainer(const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
  const auto cost = probe_deterministic_cost(w, c, resolve_device(c.device));
  SingleProcess p(w, c, kTrainerName);

  // Checkpoints and logs go below the report folder; without one (tests, the
  // library used directly) into a temporary folder removed at the end.
  std::optional<TempDir> tmp;
  std::string root = ctx.out_dir;
  if (root.empty()) root = tmp.emplace("ftb-trainer-").path();

  TrainerOptions options;
  options.loop = p.options();
  options.deterministic = true;
  options.seed = w.seed;
  Trainer trainer(options);
  for (auto* cb : ctx.callbacks) trainer.add_callback(cb);
  trainer.add_callback(std::make_shared<CsvMetricsLogger>(root + "/logs/trainer/metrics.csv", kLogEveryNSteps));
  trainer.add_callback(std::make_shared<BestCheckpoint>(p.model, root + "/checkpoints/trainer/best"));

  auto step = [&](const Batch& b) { return train_step(p.model, p.optimizer, b, c.accumulate); };
  const auto fit = trainer.fit(p.model, p.loaders.refs(), step);

  auto r = p.result(fit.loop, Precision::fp32);
  r.checkpoint_epoch = fit.checkpoint_epoch;
  r.extra["deterministic"] = fit.deterministic;
  r.extra["best_val_acc"] = fit.best_val_acc;
  r.extra["checkpoints_written"] = fit.checkpoints_written;
  r.extra["checkpoint_write_s"] = fit.checkpoint_write_s;
  r.extra["checkpoint_restore_s"] = fit.checkpoint_restore_s;
  r.extra["metrics_rows"] = fit.metrics_rows;
  if (!tmp) {
    r.extra["checkpoint_dir"] = fit.checkpoint_dir;
    r.extra["metrics_csv"] = fit.metrics_csv;
  }
  r.extra["deterministic_cost_ratio"] = cost.ratio;
  r.extra["deterministic_step_ms_off"] = cost.step_ms_off;
  r.extra["deterministic_step_ms_on"] = cost.step_ms_on;
  r.extra["deterministic_cost_method"] =
      "median train-step time with deterministic mode on / off, same fresh model and first batch, " +
      std::to_string(cost.steps_per_arm) +
      " timed steps per arm, arms in ABBA order after warm-up, before the run (outside wall_time_s)";
  return r;
}

}  // namespace

ScenarioInfo trainer_scenario() {
  ScenarioInfo s;
  s.name = kTrainerName;
  s.technique =
      "Trainer with callbacks: best-val-acc checkpoint restored for test, CSV metrics log, deterministic "
      "(the reference's step 2)";
  s.unavailable = runs_anywhere;
  s.run = run_trainer;
  return s;
}
FTB_REGISTER_SCENARIO(trainer_scenario, 300);

}  // namespace ftb
