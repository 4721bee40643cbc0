#include "core/train/trainer.h"

#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/base/files.h"
#include "core/base/text_format.h"
#include "core/model/checkpoint.h"
#include "core/measure/device.h"
#include "core/base/errors.h"

namespace ftb {
namespace {


constexpr const char* kCublasEnv = "CUBLAS_WORKSPACE_CONFIG";

std::string number(double v) { return shortest_double(v); }  // Python's repr, as CSVLogger writes


}  // namespace

// ---- deterministic mode -----------------------------------------------------

DeterministicMode::DeterministicMode(uint64_t seed, const torch::Device& device) {
  auto& ctx = at::globalContext();
  algorithms_ = ctx.deterministicAlgorithms();
  warn_only_ = ctx.deterministicAlgorithmsWarnOnly();
  cudnn_deterministic_ = ctx.deterministicCuDNN();
  cudnn_benchmark_ = ctx.benchmarkCuDNN();
  if (device.is_cuda()) {
    // cuBLAS is deterministic only with a fixed workspace configuration;
    // PyTorch refuses cuBLAS ops under deterministic algorithms without it.
    if (const char* v = std::getenv(kCublasEnv)) cublas_env_ = v;
    ::setenv(kCublasEnv, ":4096:8", /*overwrite=*/1);
    set_cublas_env_ = true;
  }
  seed_everything(seed);
  ctx.setDeterministicAlgorithms(true, /*warn_only=*/false);
  // Plain flags in the global context (no CUDA call), read by cuDNN ops only.
  ctx.setDeterministicCuDNN(true);
  ctx.setBenchmarkCuDNN(false);
}

DeterministicMode::~DeterministicMode() {
  auto& ctx = at::globalContext();
  ctx.setDeterministicAlgorithms(algorithms_, warn_only_);
  ctx.setDeterministicCuDNN(cudnn_deterministic_);
  ctx.setBenchmarkCuDNN(cudnn_benchmark_);
  if (set_cublas_env_) {
    if (cublas_env_)
      ::setenv(kCublasEnv, cublas_env_->c_str(), 1);
    else
      ::unsetenv(kCublasEnv);
  }
}

// ---- trainer ------------------------------------------------------------------

TrainerResult Trainer::fit(SequenceClassifier& model, Loaders loaders, const StepFn& step,
                           const EvalForward& eval_forward) {
  TrainerResult r;
  {
    std::optional<DeterministicMode> deterministic;  // restored even when the loop throws
    if (options_.deterministic) deterministic.emplace(options_.seed, options_.loop.device);
    r.loop = run_fine_tuning(model, loaders, options_.loop, step, order_, eval_forward);
  }
  r.deterministic = options_.deterministic;
  for (auto* cb : order_)
    if (auto* t = dynamic_cast<TrainerCallback*>(cb)) t->report(r);
  return r;
}

// ---- best checkpoint ------------------------------------------------------------

BestCheckpoint::BestCheckpoint(SequenceClassifier model, std::string dir)
    : model_(std::move(model)), dir_(std::move(dir)) {}

void BestCheckpoint::on_train_start(const LoopState&) {
  best_epoch_ = restored_epoch_ = written_ = 0;
  best_val_acc_ = write_s_ = restore_s_ = 0;
}

void BestCheckpoint::on_validation_end(const LoopState&, const EpochRecord& e) {
  if (best_epoch_ != 0 && !(e.val_acc > best_val_acc_)) return;
  // Copying the parameters to the host waits for the device: part of the
  // checkpoint's cost, outside every step's time, inside the wall time.
  const auto t0 = Clock::now();
  save_model_dir(model_, dir_);
  write_s_ += seconds_since(t0);
  ++written_;
  best_epoch_ = e.epoch;
  best_val_acc_ = e.val_acc;
}

void BestCheckpoint::on_train_end(const LoopState&) {
  if (best_epoch_ == 0) return;  // no validation ran: test the last weights
  const auto t0 = Clock::now();
  load_weights(model_, (std::filesystem::path(dir_) / "model.safetensors").string());
  restore_s_ = seconds_since(t0);
  restored_epoch_ = best_epoch_;
}

void BestCheckpoint::report(TrainerResult& r) const {
  r.checkpoint_epoch = restored_epoch_;
  r.best_val_acc = best_val_acc_;
  r.checkpoints_written = written_;
  r.checkpoint_write_s = write_s_;
  r.checkpoint_restore_s = restore_s_;
  r.checkpoint_dir = dir_;
}

// ---- CSV metrics --------------------------------------------------------------

CsvMetricsLogger::CsvMetricsLogger(std::string path, int64_t every_n_steps)
    : path_(std::move(path)), every_n_steps_(std::max<int64_t>(1, every_n_steps)) {}

void CsvMetricsLogger::on_train_start(const LoopState&) {
  rows_.clear();
  const auto parent = std::filesystem::path(path_).parent_path();
  if (!parent.empty()) make_directories(parent.string());
}

// The epoch's complete records (on a GPU the loss is read once per epoch, not
// per step), before validation: the rows keep Lightning's order.
void CsvMetricsLogger::on_epoch_steps(const LoopState&, const std::vector<StepRecord>& steps) {
  for (const auto& s : steps) {
    if (s.step % every_n_steps_ != 0) continue;
    // epoch,step,train_acc,train_loss,val_acc,val_loss
    rows_.push_back(std::to_string(s.epoch - 1) + "," + std::to_string(s.step - 1) + ",," + number(s.loss) + ",,");
  }
}

void CsvMetricsLogger::on_validation_end(const LoopState& st, const EpochRecord& e) {
  const int64_t step = std::max<int64_t>(0, st.step - 1);
  rows_.push_back(std::to_string(e.epoch - 1) + "," + std::to_string(step) + ",,," + number(e.val_acc) + "," +
                  number(e.val_loss));
}

void CsvMetricsLogger::on_epoch_end(const LoopState& st, const EpochRecord& e) {
  // Lightning logs on_epoch training metrics after the epoch's validation.
  const int64_t step = std::max<int64_t>(0, st.step - 1);
  rows_.push_back(std::to_string(e.epoch - 1) + "," + std::to_string(step) + "," + number(e.train_acc) + ",,,");
  std::string text = std::string(kHeader) + "\n";
  for (const auto& row : rows_) text += row + "\n";
  write_file_atomic(path_, text);
}

void CsvMetricsLogger::report(TrainerResult& r) const {
  r.metrics_csv = path_;
  r.metrics_rows = static_cast<int64_t>(rows_.size());
}

// ---- deterministic cost ---------------------------------------------------------

DeterministicCost measure_deterministic_cost(const StepFn& step, const Batch& batch,
                                             const torch::Device& device, uint64_t seed, int warmup,
                                             int rounds, int steps) {
  auto run = [&](int n, std::vector<double>* ms) {
    for (int i = 0; i < n; ++i) {
      synchronize(device);
      const auto t0 = Clock::now();
      step(batch);
      synchronize(device);  // the step is done when the device is
      if (ms) ms->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  };
  seed_everything(seed);
  run(warmup, nullptr);
  std::vector<double> off, on;
  // Arms in ABBA order (off-on, on-off, ...) so that a drift in speed
  // (clocks, other load on a shared machine) hits both alike; one untimed
  // step after each switch absorbs one-off work (algorithm choice).
  auto arm = [&](bool deterministic) {
    std::optional<DeterministicMode> mode;
    if (deterministic) mode.emplace(seed, device);
    run(1, nullptr);
    run(steps, deterministic ? &on : &off);
  };
  for (int r = 0; r < rounds; ++r) {
    arm(/*deterministic=*/r % 2 == 1);
    arm(/*deterministic=*/r % 2 == 0);
  }
  DeterministicCost c;
  c.step_ms_off = median(off);
  c.step_ms_on = median(on);
  c.ratio = c.step_ms_off > 0 ? c.step_ms_on / c.step_ms_off : 0;
  c.steps_per_arm = static_cast<int64_t>(off.size());
  return c;
}

}  // namespace ftb
