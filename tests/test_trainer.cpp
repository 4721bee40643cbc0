// The core Trainer's callbacks (best checkpoint, CSV metrics, deterministic
// mode) and the trainer scenario, on tiny configs.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/model/checkpoint.h"
#include "core/measure/flops.h"
#include "core/train/run_config.h"
#include "core/train/trainer.h"
#include "core/base/files.h"
#include "core/train/workload.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "tests/tiny_config.h"

namespace {


ftb::ModelConfig tiny_model_config() {
  ftb::ModelConfig m;
  m.vocab_size = 50, m.max_position_embeddings = 16;
  m.n_layers = 1, m.n_heads = 2, m.dim = 8, m.hidden_dim = 16;
  return m;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int64_t cells(const std::string& row) { return std::count(row.begin(), row.end(), ',') + 1; }

// Records whether deterministic algorithms were on while training ran.
struct FlagProbe : ftb::LoopCallback {
  bool seen = false;
  void on_train_start(const ftb::LoopState&) override { seen = at::globalContext().deterministicAlgorithms(); }
};

ftb::TrainerResult fit_tiny(const ftb::Workload& w, const ftb::RunConfig& c, bool deterministic,
                            ftb::LoopCallback* extra = nullptr) {
  const torch::Device device(torch::kCPU);
  auto model = w.make_model();
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(c.lr));
  ftb::RunLoaders loaders(w, c);
  ftb::TrainerOptions o;
  o.loop = ftb::loop_options(c, "trainer", device);
  o.deterministic = deterministic;
  o.seed = w.seed;
  ftb::Trainer trainer(o);
  if (extra) trainer.add_callback(extra);
  return trainer.fit(model, loaders.refs(), [&](const ftb::Batch& b) { return ftb::train_step(model, optimizer, b); });
}

}  // namespace

TEST_CASE("trainer: BestCheckpoint keeps the best epoch and restores exactly its weights") {
  torch::manual_seed(7);
  auto model = ftb::make_classifier(tiny_model_config());
  ftb::TempDir tmp("ftb-test-ckpt-");
  const std::string dir = tmp.path() + "/best";
  ftb::BestCheckpoint cb(model, dir);
  ftb::LoopState state;
  cb.on_train_start(state);

  const double val_acc[] = {0.60, 0.80, 0.70};  // epoch 2 is best, epoch 3 over-fits
  std::vector<torch::Tensor> epoch2;
  for (int64_t epoch = 1; epoch <= 3; ++epoch) {
    {
      torch::NoGradGuard no_grad;  // "training": new weights each epoch
      for (auto& p : model->parameters()) p.add_(torch::randn_like(p));
    }
    if (epoch == 2)
      for (auto& p : model->parameters()) epoch2.push_back(p.detach().clone());
    state.epoch = epoch;
    ftb::EpochRecord e;
    e.epoch = epoch;
    e.val_acc = val_acc[epoch - 1];
    cb.on_validation_end(state, e);
    cb.on_epoch_end(state, e);
  }
  CHECK(cb.best_epoch() == 2);
  cb.on_train_end(state);

  const auto params = model->parameters();
  REQUIRE(params.size() == epoch2.size());
  for (std::size_t i = 0; i < params.size(); ++i) CHECK(torch::equal(params[i], epoch2[i]));
  ftb::TrainerResult r;
  cb.report(r);
  CHECK(r.checkpoint_epoch == 2);
  CHECK(r.checkpoints_written == 2);  // epochs 1 and 2 improved; 3 did not
  CHECK(r.best_val_acc == doctest::Approx(0.80));
  CHECK(r.checkpoint_write_s > 0);

  SUBCASE("the folder is an HF model folder") {
    auto loaded = ftb::load_model_dir(dir);
    const auto lp = loaded->parameters();
    REQUIRE(lp.size() == epoch2.size());
    for (std::size_t i = 0; i < lp.size(); ++i) CHECK(torch::equal(lp[i], epoch2[i]));
  }
}

TEST_CASE("trainer: BestCheckpoint keeps the earlier epoch on a tie, and nothing without validation") {
  auto model = ftb::make_classifier(tiny_model_config());
  ftb::TempDir tmp("ftb-test-ckpt-");
  ftb::BestCheckpoint cb(model, tmp.path() + "/best");
  ftb::LoopState state;
  cb.on_train_start(state);
  cb.on_train_end(state);
  ftb::TrainerResult r;
  cb.report(r);
  CHECK(r.checkpoint_epoch == 0);

  cb.on_train_start(state);
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    ftb::EpochRecord e;
    e.epoch = epoch;
    e.val_acc = 0.5;
    cb.on_validation_end(state, e);
  }
  cb.on_train_end(state);
  CHECK(cb.restored_epoch() == 1);
}

TEST_CASE("trainer: CsvMetricsLogger writes Lightning's header and rows") {
  ftb::TempDir tmp("ftb-test-csv-");
  const std::string path = tmp.path() + "/logs/trainer/metrics.csv";  // parent folders created
  ftb::CsvMetricsLogger log(path, /*every_n_steps=*/2);
  ftb::LoopState state;
  log.on_train_start(state);
  const int64_t epochs = 2, steps_per_epoch = 5;
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    state.epoch = epoch;
    std::vector<ftb::StepRecord> steps;
    for (int64_t i = 0; i < steps_per_epoch; ++i) {
      ftb::StepRecord s;
      s.step = ++state.step;
      s.epoch = epoch;
      s.loss = 0.5;
      steps.push_back(s);
    }
    log.on_epoch_steps(state, steps);
    ftb::EpochRecord e;
    e.epoch = epoch;
    e.train_acc = 0.75, e.val_acc = 0.625, e.val_loss = 0.25;
    log.on_validation_end(state, e);
    log.on_epoch_end(state, e);
  }
  const auto lines = read_lines(path);
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "epoch,step,train_acc,train_loss,val_acc,val_loss");
  // steps 2, 4, 6, 8, 10 log train_loss; each epoch adds a val row and a train_acc row
  CHECK(lines.size() == 1 + 5 + 2 * epochs);
  CHECK(log.rows() == 5 + 2 * epochs);
  for (const auto& l : lines) CHECK(cells(l) == 6);
  CHECK(lines[1] == "0,1,,0.5,,");                // 0-based epoch and step, as Lightning
  CHECK(lines[3] == "0,4,,,0.625,0.25");          // validation at the epoch's last step
  CHECK(lines[4] == "0,4,0.75,,,");               // epoch-level train_acc after it
  CHECK(lines.back() == "1,9,0.75,,,");
}

TEST_CASE("trainer: deterministic mode gives bitwise-identical runs and is restored afterwards") {
  auto config = tiny_config();
  config.epochs = 2;
  config.max_steps = 3;
  const auto workload = ftb::build_workload(config);
  auto& ctx = at::globalContext();
  const bool before = ctx.deterministicAlgorithms();
  const bool cudnn_before = ctx.deterministicCuDNN();

  FlagProbe probe;
  const auto a = fit_tiny(workload, config, /*deterministic=*/true, &probe);
  CHECK(probe.seen);
  CHECK(ctx.deterministicAlgorithms() == before);
  CHECK(ctx.deterministicCuDNN() == cudnn_before);
  torch::rand({100});  // move the global generator: the mode reseeds it
  const auto b = fit_tiny(workload, config, /*deterministic=*/true);
  REQUIRE(a.loop.steps.size() == 6);
  REQUIRE(a.loop.steps.size() == b.loop.steps.size());
  for (std::size_t i = 0; i < a.loop.steps.size(); ++i) CHECK(a.loop.steps[i].loss == b.loop.steps[i].loss);
  CHECK(a.loop.test.loss == b.loop.test.loss);
  CHECK(a.deterministic);
  CHECK(ctx.deterministicAlgorithms() == before);
}

TEST_CASE("trainer: DeterministicMode sets and restores the cuBLAS workspace variable") {
  const torch::Device cuda(torch::kCUDA, 0);  // no CUDA call is made: runs on CPU-only machines
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8", 1);
  {
    ftb::DeterministicMode mode(1, cuda);
    CHECK(std::string(std::getenv("CUBLAS_WORKSPACE_CONFIG")) == ":4096:8");
    CHECK(at::globalContext().deterministicCuDNN());
    CHECK(!at::globalContext().benchmarkCuDNN());
  }
  CHECK(std::string(std::getenv("CUBLAS_WORKSPACE_CONFIG")) == ":16:8");
  ::unsetenv("CUBLAS_WORKSPACE_CONFIG");
  { ftb::DeterministicMode mode(1, cuda); }
  CHECK(std::getenv("CUBLAS_WORKSPACE_CONFIG") == nullptr);
}

TEST_CASE("trainer scenario: the restored best checkpoint is what the test accuracy measures") {
  auto config = tiny_config();
  config.epochs = 3;
  config.max_steps = 3;
  const auto workload = ftb::build_workload(config);
  ftb::TempDir out("ftb-test-run-");
  ftb::ScenarioContext ctx;
  ctx.out_dir = out.path();
  const auto r = ftb::run_scenario(*ftb::find_scenario("trainer"), workload, config, ctx);
  REQUIRE_MESSAGE(r.status == ftb::Status::ok, r.reason);
  CHECK(r.precision == ftb::Precision::fp32);
  REQUIRE(r.epochs.size() == 3);
  // The best epoch by validation accuracy (first of equals).
  int64_t best = 1;
  for (const auto& e : r.epochs)
    if (e.val_acc > r.epochs[best - 1].val_acc) best = e.epoch;
  CHECK(r.checkpoint_epoch == best);
  CHECK(r.extra.at("deterministic_cost_ratio").get<double>() > 0);
  CHECK(r.extra.at("checkpoint_write_s").get<double>() > 0);

  const std::string dir = out.path() + "/checkpoints/trainer/best";
  auto model = ftb::load_model_dir(dir);
  ftb::RunLoaders loaders(workload, config);
  const auto test = ftb::evaluate(model, loaders.test, torch::kCPU, config.eval_max_batches);
  CHECK(test.acc == r.test_acc);
  CHECK(test.loss == doctest::Approx(r.test_loss));

  const auto csv = read_lines(out.path() + "/logs/trainer/metrics.csv");
  REQUIRE(!csv.empty());
  CHECK(csv[0] == ftb::CsvMetricsLogger::kHeader);
  CHECK(static_cast<int64_t>(csv.size()) == 1 + r.extra.at("metrics_rows").get<int64_t>());
}

TEST_CASE("flops: the count is the work the classifier needs, DistilBERT's last layer for [CLS] only") {
  ftb::ModelConfig c;
  c.dim = 4, c.hidden_dim = 8, c.n_layers = 2, c.num_labels = 2;
  // Per row and layer: Q K V O 4*16 + FFN 2*32 + attention 2*T*C (T = 3): 152
  // multiply-adds; the head 16 + 8 on [CLS]; 6 FLOPs per multiply-add per step.
  c.type = ftb::ModelType::bert;
  CHECK(ftb::train_step_flops(c, 1, 3) == doctest::Approx(6.0 * (2 * 3 * 152 + 24)));
  // DistilBERT: the last layer's K and V on 3 rows (3*32), the rest of it on 1 row (152 - 32).
  c.type = ftb::ModelType::distilbert;
  CHECK(ftb::train_step_flops(c, 1, 3) == doctest::Approx(6.0 * (3 * 152 + 96 + 120 + 24)));
  CHECK(ftb::train_step_flops(c, 5, 3) == doctest::Approx(5 * ftb::train_step_flops(c, 1, 3)));
}
