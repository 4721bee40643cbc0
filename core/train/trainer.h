// A small Trainer in the spirit of Lightning's: the shared loop
// (run_fine_tuning) plus callbacks, and the three things the reference's
// Trainer run turns on (SEED.md, step 2):
//   BestCheckpoint    ModelCheckpoint(monitor="val_acc", mode="max", save_top_k=1),
//                     restored before the test pass (trainer.test(ckpt_path="best"))
//   CsvMetricsLogger  CSVLogger's metrics.csv
//   DeterministicMode seed_everything + Trainer(deterministic=True)
// The loop itself is not duplicated here: fit() is run_fine_tuning with the
// callbacks attached and deterministic mode around it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/classifier.h"
#include "core/train/train_loop.h"

namespace ftb {

struct TrainerResult {
  LoopResult loop;
  bool deterministic = false;
  // Filled by BestCheckpoint when attached.
  int64_t checkpoint_epoch = 0;   // epoch whose weights produced loop.test; 0 = last weights
  double best_val_acc = 0;
  int64_t checkpoints_written = 0;
  double checkpoint_write_s = 0;  // total; inside wall_time_s, outside every step time
  double checkpoint_restore_s = 0;
  std::string checkpoint_dir;
  // Filled by CsvMetricsLogger when attached.
  std::string metrics_csv;
  int64_t metrics_rows = 0;
};

// A callback that reports what it decided or measured into the fit's result.
class TrainerCallback : public LoopCallback {
 public:
  virtual void report(TrainerResult&) const {}
};

// Lightning's Trainer(deterministic=True) plus seed_everything(seed), as an
// RAII switch: seeds the CPU and CUDA generators, turns deterministic
// algorithms on (an op without a deterministic implementation throws rather
// than warns), and on CUDA sets cuDNN deterministic, cuDNN benchmark off and
// CUBLAS_WORKSPACE_CONFIG=:4096:8. Every flag and the variable are put back
// as they were on destruction (the generators' states are not: seeding is
// the point). Note that PyTorch reads CUBLAS_WORKSPACE_CONFIG for its own
// cuBLAS workspace size once per process, at the first cuBLAS handle; when
// another scenario ran on CUDA before, only the deterministic-algorithms
// check sees the variable (results on one stream are reproducible anyway).
class DeterministicMode {
 public:
  DeterministicMode(uint64_t seed, const torch::Device& device);
  ~DeterministicMode();
  DeterministicMode(const DeterministicMode&) = delete;
  DeterministicMode& operator=(const DeterministicMode&) = delete;

 private:
  bool algorithms_, warn_only_, cudnn_deterministic_, cudnn_benchmark_;
  bool set_cublas_env_ = false;
  std::optional<std::string> cublas_env_;  // the previous value; nullopt = unset
};

struct TrainerOptions {
  LoopOptions loop;
  bool deterministic = false;  // DeterministicMode around the whole fit (and test)
  uint64_t seed = 123;         // used by deterministic mode
};

class Trainer {
 public:
  explicit Trainer(TrainerOptions options) : options_(std::move(options)) {}
  // Callbacks run in the order added (Lightning runs checkpointing last, so
  // add BestCheckpoint last).
  void add_callback(std::shared_ptr<LoopCallback> cb) {
    order_.push_back(cb.get());
    owned_.push_back(std::move(cb));
  }
  // Not owned (e.g. the runner's progress bar); must outlive fit().
  void add_callback(LoopCallback* borrowed) { order_.push_back(borrowed); }

  // Trains, validates each epoch, then (after on_train_end, where a
  // BestCheckpoint restores the best weights) runs the test pass.
  TrainerResult fit(SequenceClassifier& model, Loaders loaders, const StepFn& step,
                    const EvalForward& eval_forward = nullptr);

 private:
  TrainerOptions options_;
  std::vector<std::shared_ptr<LoopCallback>> owned_;
  std::vector<LoopCallback*> order_;
};

// Keeps the model with the best validation accuracy (top 1; a tie keeps the
// earlier epoch, as ModelCheckpoint's strict ">" does) as an HF folder
// (save_model_dir) in `dir`, overwritten on each improvement, and loads it
// back into the model in on_train_end, i.e. before the test pass.
class BestCheckpoint : public TrainerCallback {
 public:
  BestCheckpoint(SequenceClassifier model, std::string dir);
  void on_train_start(const LoopState&) override;
  void on_validation_end(const LoopState&, const EpochRecord& e) override;
  void on_train_end(const LoopState&) override;
  void report(TrainerResult& r) const override;

  int64_t best_epoch() const { return best_epoch_; }      // 0 = none written yet
  int64_t restored_epoch() const { return restored_epoch_; }
  const std::string& dir() const { return dir_; }

 private:
  SequenceClassifier model_;  // shares the module
  std::string dir_;
  int64_t best_epoch_ = 0, restored_epoch_ = 0, written_ = 0;
  double best_val_acc_ = 0, write_s_ = 0, restore_s_ = 0;
};

// Lightning's CSVLogger metrics.csv for the reference's LightningModule
// (train_loss logged on_step, train_acc on_epoch, val_loss/val_acc per
// validation). Header as Lightning writes it (keys sorted):
//   epoch,step,train_acc,train_loss,val_acc,val_loss
// epoch and step are 0-based as in Lightning. Rows, each with empty cells for
// what it did not log: one per `every_n_steps` training steps (train_loss of
// that step; Lightning's log_every_n_steps), then per epoch a val row
// (val_acc, val_loss) and a train_acc row, both at the epoch's last step.
// The file is rewritten whole (temporary file + rename) at each epoch end.
class CsvMetricsLogger : public TrainerCallback {
 public:
  static constexpr const char* kHeader = "epoch,step,train_acc,train_loss,val_acc,val_loss";
  CsvMetricsLogger(std::string path, int64_t every_n_steps = 50);
  void on_train_start(const LoopState&) override;
  void on_epoch_steps(const LoopState&, const std::vector<StepRecord>& steps) override;
  void on_validation_end(const LoopState& st, const EpochRecord& e) override;
  void on_epoch_end(const LoopState&, const EpochRecord&) override;
  void report(TrainerResult& r) const override;
  const std::string& path() const { return path_; }
  std::size_t rows() const { return rows_.size(); }

 private:
  std::string path_;
  int64_t every_n_steps_;
  std::vector<std::string> rows_;
};

// Cost of deterministic mode on this machine: one model and one batch, after
// `warmup` steps, `rounds` rounds of `steps` timed steps off and `steps` on
// (ABBA order); ratio = median step time on / median off. Changes the
// model's weights (use a throwaway model) and reseeds the generators.
struct DeterministicCost {
  double step_ms_off = 0, step_ms_on = 0, ratio = 0;
  int64_t steps_per_arm = 0;
};
DeterministicCost measure_deterministic_cost(const StepFn& step, const Batch& batch,
                                             const torch::Device& device, uint64_t seed,
                                             int warmup = 2, int rounds = 4, int steps = 2);

}  // namespace ftb
