// Distributed training on c10d (Gloo over loopback), with the ranks as
// threads of this process: each thread is one rank with its own store
// client, process group and model, exactly as separate processes would be.
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <chrono>
#include <exception>
#include <functional>
#include <thread>

#include "scenarios/parallel/launcher.h"
#include "core/train/optimizer.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/rank_env.h"
#include "core/model/classifier.h"
#include "core/train/workload.h"
#include "scenarios/parallel/distributed_row.h"
#include "tests/tiny_config.h"

namespace {

// Runs fn(env) for ranks 0..world-1 in threads; rethrows the first failure.
void run_ranks(int world, const std::function<void(const ftb::DistEnv&)>& fn) {
  const int port = ftb::pick_free_port("127.0.0.1");
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      ftb::DistEnv e;
      e.launched = true;
      e.rank = e.local_rank = r;
      e.world_size = e.local_world_size = world;
      e.master_port = port;
      try {
        fn(e);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::shared_ptr<ftb::dist::Communicator> join(const ftb::DistEnv& e, const std::string& name, double timeout_s = 30) {
  return ftb::dist::Communicator::create(e, torch::kCPU, std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)),
                                         name);
}

ftb::ModelConfig tiny_model() {
  ftb::ModelConfig c;
  c.vocab_size = 60, c.dim = 16, c.n_heads = 2, c.hidden_dim = 32, c.n_layers = 2, c.max_position_embeddings = 16;
  c.dropout = c.attention_dropout = c.seq_classif_dropout = 0.0;
  return c;
}

ftb::SequenceClassifier make_model() {
  static std::mutex mu;  // the global generator: one model at a time
  std::lock_guard<std::mutex> lock(mu);
  torch::manual_seed(7);
  return ftb::make_classifier(tiny_model());
}

// Step k's global batch of 2b rows (the same on every rank).
struct GlobalBatch {
  torch::Tensor ids, labels;
};
GlobalBatch global_batch(int step, int64_t rows) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(1000 + step);
  return {torch::randint(1, 60, {rows, 12}, g, torch::kLong), torch::randint(0, 2, {rows}, g, torch::kLong)};
}

torch::Tensor loss_of(ftb::SequenceClassifier& m, const torch::Tensor& ids, const torch::Tensor& labels) {
  return torch::cross_entropy_loss(m->forward(ids, torch::ones_like(ids)), labels);
}

constexpr int kSteps = 4;
constexpr int64_t kPerRank = 4;
constexpr double kLr = 1e-3;

std::vector<torch::Tensor> snapshot(ftb::SequenceClassifier& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m->parameters()) out.push_back(p.detach().clone());
  return out;
}

double max_abs_diff(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

struct RankOutcome {
  std::vector<torch::Tensor> params;
  int64_t optimizer_state_bytes = 0, grad_bytes = 0;
  std::size_t buckets = 0, issued_in_backward = 0;
  std::string fallback;
};

// k steps of data-parallel training on `world` ranks, each with its slice of
// the global batch; rank 0's parameters and measurements.
RankOutcome train_parallel(ftb::dist::Sharding sharding, int world, int64_t bucket_cap_bytes) {
  RankOutcome out;
  run_ranks(world, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/" + ftb::dist::to_string(sharding));
    auto model = make_model();
    ftb::dist::DataParallelOptions o;
    o.sharding = sharding;
    o.bucket_cap_bytes = bucket_cap_bytes;
    o.lr = kLr;
    ftb::dist::DataParallel dp(model->parameters(), comm, o);
    dp.broadcast_parameters(0);
    for (int step = 0; step < kSteps; ++step) {
      const auto g = global_batch(step, kPerRank * world);
      dp.zero_grad();
      loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank), g.labels.narrow(0, e.rank * kPerRank, kPerRank))
          .backward();
      dp.finish_gradient_sync();
      dp.step();
    }
    if (e.rank == 0) {
      out.params = snapshot(model);
      out.optimizer_state_bytes = dp.optimizer_state_bytes();
      out.grad_bytes = dp.gradient_bytes();
      out.buckets = dp.bucket_count();
      out.issued_in_backward = dp.buckets_issued_in_backward();
      out.fallback = comm->fallback();
    }
  });
  return out;
}

// The same k steps in one process on the whole global batch, with the Adam
// kernel DataParallel's factory picks (fused where this LibTorch has it).
std::vector<torch::Tensor> train_single(int64_t rows) {
  auto model = make_model();
  auto adam = ftb::make_device_adam(model->parameters(), kLr, torch::kCPU);
  for (int step = 0; step < kSteps; ++step) {
    const auto g = global_batch(step, rows);
    adam->zero_grad();
    loss_of(model, g.ids, g.labels).backward();
    adam->step();
  }
  return snapshot(model);
}

constexpr int64_t kSmallBuckets = 4096;  // several buckets for the tiny model: hooks issue them in order

}  // namespace

TEST_CASE("ddp: 2 ranks with batch b match one process with batch 2b, step for step") {
  const auto single = train_single(2 * kPerRank);
  const auto ddp = train_parallel(ftb::dist::Sharding::none, 2, kSmallBuckets);
  CHECK(ddp.buckets > 3);
  // Every bucket's all-reduce was issued by the hooks while backward ran (the
  // overlap), none left for finish_gradient_sync.
  CHECK(ddp.issued_in_backward == ddp.buckets);
  CHECK(max_abs_diff(ddp.params, single) < 1e-5);
  // ... and the parameters moved (the comparison is not of two untouched models)
  auto untouched = make_model();
  CHECK(max_abs_diff(single, snapshot(untouched)) > 1e-3);
}

TEST_CASE("sharded and zero2 match ddp, optimizer state (and zero2's gradients) are 1/N per rank") {
  const auto ddp = train_parallel(ftb::dist::Sharding::none, 2, kSmallBuckets);
  const auto zero1 = train_parallel(ftb::dist::Sharding::optimizer, 2, kSmallBuckets);
  const auto zero2 = train_parallel(ftb::dist::Sharding::gradients, 2, kSmallBuckets);
  CHECK(max_abs_diff(zero1.params, ddp.params) < 1e-5);
  CHECK(max_abs_diff(zero2.params, ddp.params) < 1e-5);
  // Gloo has no reduce-scatter: the emulation is used and reported.
  CHECK(zero2.fallback.find("reduce_scatter = all_reduce + chunk") == 0);
  // Half, up to the padding of each bucket to a multiple of the world size
  // (and the step counters, one float per bucket).
  const double half_state = ddp.optimizer_state_bytes / 2.0;
  CHECK(zero1.optimizer_state_bytes == doctest::Approx(half_state).epsilon(0.01));
  CHECK(zero2.optimizer_state_bytes == doctest::Approx(half_state).epsilon(0.01));
  CHECK(zero1.grad_bytes == ddp.grad_bytes);  // ZeRO-1 keeps full gradients
  CHECK(zero2.issued_in_backward == zero2.buckets);
  CHECK(zero2.grad_bytes == doctest::Approx(ddp.grad_bytes / 2.0).epsilon(0.01));
}

TEST_CASE("one bucket or many: the same parameters") {
  const auto many = train_parallel(ftb::dist::Sharding::gradients, 2, kSmallBuckets);
  const auto one = train_parallel(ftb::dist::Sharding::gradients, 2, int64_t{1} << 30);
  CHECK(one.buckets == 1);
  CHECK(max_abs_diff(many.params, one.params) < 1e-6);
}

TEST_CASE("a peer that never joins a collective fails the other rank within the timeout") {
  std::string rank0_error;
  double rank0_s = 0;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/timeout", /*timeout_s=*/2);
    if (e.rank == 1) {  // alive and connected, but never calls the collective
      std::this_thread::sleep_for(std::chrono::seconds(5));
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
      auto t = torch::ones({4});
      comm->run(comm->all_reduce_sum(t));
    } catch (const std::exception& ex) {
      rank0_error = ex.what();
    }
    rank0_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  CHECK_FALSE(rank0_error.empty());
  CHECK(rank0_s > 1.5);  // it was the timeout ...
  CHECK(rank0_s < 4.5);  // ... of 2 s, not the peer leaving at 5 s
}

TEST_CASE("fabric with each strategy trains exactly as the scenario it wraps") {
  auto c = tiny_config();
  c.dropout = 0;  // ranks are threads here: dropout would share one generator
  c.world_size = 2;
  c.bucket_mb = 0.01;
  c.dp_precision = c.fabric_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  for (const char* strategy : {"ddp", "sharded", "zero2"}) {
    CAPTURE(strategy);
    c.fabric_strategy = strategy;
    ftb::ScenarioResult direct, fabric;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_data_parallel(w, c, {}, ftb::dist::sharding_from_string(strategy), e);
      if (e.rank == 0) direct = r;
    });
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_fabric(w, c, {}, e);
      if (e.rank == 0) fabric = r;
    });
    REQUIRE(direct.steps.size() == fabric.steps.size());
    REQUIRE(!direct.steps.empty());
    for (std::size_t i = 0; i < direct.steps.size(); ++i) CHECK(fabric.steps[i].loss == doctest::Approx(direct.steps[i].loss).epsilon(1e-6));
    CHECK(fabric.test_acc == direct.test_acc);
    CHECK(fabric.distributed.strategy == strategy);
    CHECK(direct.distributed.backend == "gloo");
    CHECK(direct.world_size == 2);
    // Global throughput counts both ranks' samples.
    CHECK(direct.train_samples_per_s > direct.distributed.per_rank_samples_per_s * 1.5);
  }
}
