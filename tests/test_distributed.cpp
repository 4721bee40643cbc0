// Distributed training on c10d (Gloo over loopback), with the ranks as
// threads of this process: each thread is one rank with its own store
// client, process group and model, exactly as separate processes would be.
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/host_name.h"
#include "scenarios/parallel/launcher.h"
#include "core/train/optimizer.h"
#include "core/train/train_step.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/fabric.h"
#include "scenarios/parallel/fully_sharded.h"
#include "scenarios/parallel/rank_env.h"
#include "core/model/classifier.h"
#include "core/train/workload.h"
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "core/measure/device.h"
#include "scenarios/parallel/held_memory.h"
#include "tests/skip.h"
#include "tests/tiny_config.h"
#include "tests/tensor_checks.h"
#include "tests/counting_allocator.h"
#include "tests/rank_threads.h"

namespace {

using ftb_test::max_abs_diff;

using ftb_test::join;
using ftb_test::run_ranks;

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

struct RankOutcome {
  std::vector<torch::Tensor> params;
  int64_t optimizer_state_bytes = 0, grad_bytes = 0, param_bytes = 0, host_bytes = 0, offload_bytes = 0;
  int64_t max_gathered_bytes = 0;
  std::vector<int64_t> unit_bytes;  // zero3: each unit whole, in forward order
  std::vector<std::string> events;  // zero3 (rank 0)
  std::size_t buckets = 0, issued_in_backward = 0;
  std::string fallback;
};

// k steps of data-parallel training on `world` ranks, each with its slice of
// the global batch; rank 0's parameters and measurements.
RankOutcome train_parallel(ftb::dist::Sharding sharding, int world, int64_t bucket_cap_bytes, bool offload = false) {
  RankOutcome out;
  run_ranks(world, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/" + ftb::dist::to_string(sharding) + (offload ? "_offload" : ""));
    auto model = make_model();
    ftb::dist::DataParallelOptions o;
    o.sharding = sharding;
    o.offload = offload;
    o.bucket_cap_bytes = bucket_cap_bytes;
    o.lr = kLr;
    std::unique_ptr<ftb::dist::GradientSync> sync;
    ftb::dist::FullyShardedUnits* units = nullptr;
    if (sharding == ftb::dist::Sharding::parameters) {
      auto z3 = std::make_unique<ftb::dist::FullyShardedUnits>(model, comm, o);
      units = z3.get();
      units->record_events = e.rank == 0;
      sync = std::move(z3);
    } else {
      sync = std::make_unique<ftb::dist::DataParallel>(model->parameters(), comm, o);
    }
    auto& dp = *sync;
    dp.broadcast_parameters(0);
    for (int step = 0; step < kSteps; ++step) {
      const auto g = global_batch(step, kPerRank * world);
      dp.zero_grad();
      loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank), g.labels.narrow(0, e.rank * kPerRank, kPerRank))
          .backward();
      dp.finish_gradient_sync();
      dp.step();
    }
    if (units) {
      if (e.rank == 0) {
        out.events = units->events;
        out.max_gathered_bytes = units->max_gathered_bytes();
        out.unit_bytes = units->unit_bytes();
      }
      units->gather_all();  // every rank: a collective
    }
    if (e.rank == 0) {
      out.params = snapshot(model);
      out.optimizer_state_bytes = dp.optimizer_state_bytes();
      out.grad_bytes = dp.gradient_bytes();
      out.param_bytes = dp.parameter_bytes();
      out.host_bytes = dp.host_bytes();
      out.offload_bytes = dp.offload_bytes_per_step();
      out.buckets = dp.bucket_count();
      if (auto* data_parallel = dynamic_cast<ftb::dist::DataParallel*>(&dp))
        out.issued_in_backward = data_parallel->buckets_issued_in_backward();
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

TEST_CASE("offload (ZeRO-Offload of sharded and zero2) matches ddp on 2 and 4 ranks, the shard's state on the host") {
  for (int world : {2, 4}) {
    CAPTURE(world);
    const auto ddp = train_parallel(ftb::dist::Sharding::none, world, kSmallBuckets);
    const auto zero2 = train_parallel(ftb::dist::Sharding::gradients, world, kSmallBuckets);
    const auto z2_off = train_parallel(ftb::dist::Sharding::gradients, world, kSmallBuckets, /*offload=*/true);
    const auto z1_off = train_parallel(ftb::dist::Sharding::optimizer, world, kSmallBuckets, /*offload=*/true);
    CHECK(max_abs_diff(z2_off.params, ddp.params) < 1e-5);
    CHECK(max_abs_diff(z1_off.params, ddp.params) < 1e-5);
    CHECK(max_abs_diff(z2_off.params, zero2.params) < 1e-6);
    // From the tensors that exist: Adam's state is 1/N of ddp's (up to padding
    // and step counters), and the host keeps it plus the shard's master and
    // its gradient staging (2 x the shard); each step moves the shard twice.
    CHECK(z2_off.optimizer_state_bytes == doctest::Approx(ddp.optimizer_state_bytes / double(world)).epsilon(0.02));
    const double shard = ddp.param_bytes / double(world);
    CHECK(z2_off.host_bytes == doctest::Approx(z2_off.optimizer_state_bytes + 2 * shard).epsilon(0.02));
    CHECK(z2_off.offload_bytes == doctest::Approx(2 * shard).epsilon(0.02));
    CHECK(zero2.host_bytes == 0);
    CHECK(z2_off.grad_bytes == zero2.grad_bytes);
    CHECK(z2_off.param_bytes == zero2.param_bytes);  // ZeRO-2 keeps every parameter on the device
  }
  CHECK_THROWS(ftb::dist::DataParallel({torch::zeros({4}, torch::requires_grad())}, nullptr,
                                       [] {
                                         ftb::dist::DataParallelOptions o;
                                         o.offload = true;  // ddp has no shard to offload
                                         return o;
                                       }()));
}

TEST_CASE("zero3 (and zero3_offload) match ddp on 2 and 4 ranks, each rank holding 1/N of every tensor") {
  for (int world : {2, 4}) {
    CAPTURE(world);
    const auto ddp = train_parallel(ftb::dist::Sharding::none, world, kSmallBuckets);
    const auto zero3 = train_parallel(ftb::dist::Sharding::parameters, world, kSmallBuckets);
    const auto z3_off = train_parallel(ftb::dist::Sharding::parameters, world, kSmallBuckets, /*offload=*/true);
    CHECK(max_abs_diff(zero3.params, ddp.params) < 1e-5);
    CHECK(max_abs_diff(z3_off.params, ddp.params) < 1e-5);
    CHECK(zero3.buckets > 3);  // units: embeddings, each block, the head
    // From the tensors that exist: parameters, gradients and Adam's state
    // per rank are 1/N of ddp's (up to each unit's padding to N).
    CHECK(zero3.param_bytes == doctest::Approx(ddp.param_bytes / double(world)).epsilon(0.02));
    CHECK(zero3.grad_bytes == doctest::Approx(ddp.grad_bytes / double(world)).epsilon(0.02));
    CHECK(zero3.optimizer_state_bytes == doctest::Approx(ddp.optimizer_state_bytes / double(world)).epsilon(0.02));
    CHECK(z3_off.host_bytes == doctest::Approx(z3_off.optimizer_state_bytes + 2 * zero3.param_bytes).epsilon(0.02));
    // Whole parameters alive at once: the unit computing and the one
    // prefetched, never more. Expected from the unit sizes: the largest two
    // neighbours (for this model the two blocks, ~74 % of it). The old check
    // (< the whole model) passed with one unit leaked (never freed); this
    // one fails by that unit's bytes.
    int64_t pair = 0, whole = 0;
    for (std::size_t u = 0; u < zero3.unit_bytes.size(); ++u) {
      whole += zero3.unit_bytes[u];
      if (u > 0) pair = std::max(pair, zero3.unit_bytes[u - 1] + zero3.unit_bytes[u]);
    }
    CAPTURE(whole);
    CHECK(zero3.max_gathered_bytes == pair);
    CHECK(pair < whole);
  }
}

TEST_CASE("zero3 prefetches: the next unit's all-gather is issued before the current unit computes") {
  const auto zero3 = train_parallel(ftb::dist::Sharding::parameters, 2, kSmallBuckets);
  const auto& ev = zero3.events;
  REQUIRE(!ev.empty());
  auto at = [&](const std::string& e, std::size_t from = 0) {
    const auto it = std::find(ev.begin() + static_cast<std::ptrdiff_t>(from), ev.end(), e);
    return static_cast<std::size_t>(it - ev.begin());
  };
  // The first step's forward: "forward u" comes after "gather u+1" was issued,
  // and "forward-end u" after both.
  const std::size_t units = static_cast<std::size_t>(zero3.buckets);
  for (std::size_t u = 0; u + 1 < units; ++u) {
    CAPTURE(u);
    CHECK(at("gather " + std::to_string(u + 1)) < at("forward " + std::to_string(u)));
    CHECK(at("forward " + std::to_string(u)) < at("forward-end " + std::to_string(u)));
  }
  // Backward, last unit first: each unit's gather again before its backward
  // gradient flows, the unit below prefetched, its gradients reduced after.
  const std::size_t first_backward = at("backward " + std::to_string(units - 1));
  REQUIRE(first_backward < ev.size());
  for (std::size_t u = units - 1; u-- > 0;) {
    CAPTURE(u);
    const std::size_t gathered = at("gather " + std::to_string(u), first_backward);
    const std::size_t backward = at("backward " + std::to_string(u), first_backward);
    const std::size_t reduced = at("reduce " + std::to_string(u), first_backward);
    CHECK(gathered < backward);  // prefetched while the unit above ran backward
    CHECK(backward < reduced);
    CHECK(at("reduce " + std::to_string(u + 1), first_backward) < reduced);
  }
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

// Issue 28 review P1-1: every rank read host/0..N-1 from the store at the
// row's end, when rank 0 (the store's server under ftbench's launcher) may
// have written its result and left: a slow rank's read got a connection
// reset. Now rank 0 reads them when the group is made, the others never.
// Fails on the old code: rank 1's hosts() read the store and were not empty.
TEST_CASE("hosts: rank 0 reads every rank's host when the group is made, the other ranks none") {
  std::vector<std::vector<std::string>> hosts(2);
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/hosts");
    hosts[static_cast<std::size_t>(e.rank)] = comm->hosts();
  });
  REQUIRE(hosts[0].size() == 2);
  CHECK(hosts[0][0] == ftb::host_name());  // the one helper the environment's "host" uses too
  CHECK(hosts[0][0] == hosts[0][1]);       // both threads run on this machine
  CHECK(ftb::dist::node_count(hosts[0]) == 1);
  CHECK(hosts[1].empty());
}

TEST_CASE("strategies by either vocabulary, an unknown one lists them all") {
  // The rows answer to DeepSpeed's and FSDP's names too.
  for (const auto& [strategy, alias] : ftb::Choices<ftb::Strategy>::names) {
    CAPTURE(alias);
    const ftb::ScenarioInfo* info = ftb::find_scenario(std::string(alias));
    REQUIRE(info != nullptr);
    CHECK(info->name == ftb::to_string(strategy));
    // ... and each row's sharding and offload name the strategy back.
    CHECK(ftb::dist::strategy_of(ftb::dist::sharding_of(strategy), ftb::dist::offloaded(strategy)) == strategy);
  }
  const auto parse = [](const char* name) { return ftb::to_string(ftb::parse_choice<ftb::Strategy>(name, "k")); };
  CHECK(parse("deepspeed_stage_2_offload") == "zero2_offload");
  CHECK(parse("SHARD_GRAD_OP") == "zero2");
  CHECK(parse("NO_SHARD") == "ddp");
  CHECK(parse("deepspeed_stage_1") == "sharded");
  try {
    auto c = ftb::preset_config("smoke");
    ftb::apply_override(c, "fabric_strategy=FULL_SHARDED");
    FAIL("accepted an unknown strategy");
  } catch (const ftb::InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("fabric_strategy") != std::string::npos);
    CHECK(m.find("deepspeed_stage_2_offload") != std::string::npos);
    CHECK(m.find("SHARD_GRAD_OP") != std::string::npos);
  }
}

TEST_CASE("fabric with each strategy trains exactly as the scenario it wraps") {
  auto c = tiny_config();
  c.dropout = 0;  // ranks are threads here: dropout would share one generator
  c.world_size = 2;
  c.bucket_mb = 0.01;
  c.dp_precision = c.fabric_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  for (const char* strategy : {"ddp", "sharded", "zero2", "zero2_offload", "zero3", "zero3_offload"}) {
    CAPTURE(strategy);
    c.fabric_strategy = ftb::parse_choice<ftb::Strategy>(strategy, "fabric_strategy");
    ftb::ScenarioResult direct, fabric;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_data_parallel(w, c, {}, ftb::dist::sharding_of(c.fabric_strategy), e,
                                      ftb::dist::offloaded(c.fabric_strategy));
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

TEST_CASE("a device budget: ddp does not fit where zero3 trains (max_device_bytes)") {
  auto c = tiny_config();
  c.n_layers = 6;  // units small beside the whole model: what zero3 is for
  c.dropout = 0;
  c.world_size = 2;
  c.dp_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  auto needed = [&](ftb::dist::Sharding s) {
    int64_t bytes = 0;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_data_parallel(w, c, {}, s, e);
      if (e.rank == 0) bytes = r.extra.at("device_bytes_needed").get<int64_t>();
    });
    return bytes;
  };
  const int64_t ddp = needed(ftb::dist::Sharding::none), zero3 = needed(ftb::dist::Sharding::parameters);
  CHECK(zero3 < ddp);
  c.max_device_bytes = (ddp + zero3) / 2;
  std::string why;
  try {
    run_ranks(2, [&](const ftb::DistEnv& e) { ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::none, e); });
  } catch (const std::exception& e) {
    why = e.what();
  }
  CHECK(why.find("does not fit max_device_bytes=" + std::to_string(c.max_device_bytes)) == 0);
  ftb::ScenarioResult z3;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto r = ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::parameters, e);
    if (e.rank == 0) z3 = r;
  });
  CHECK(z3.status == ftb::Status::ok);
  CHECK(z3.distributed.strategy == "zero3");
  // zero3 moves parameters both ways every step: all-gathers (forward and
  // backward) and reduce-scatters, no gradient all-reduce.
  CHECK(z3.distributed.collective_bytes_per_step.at("all_gather") > 0);
  CHECK(z3.distributed.collective_bytes_per_step.at("reduce_scatter") > 0);
  CHECK(z3.train_samples_per_s > 0);
}

// zero3's evaluation against ddp's on the same trained weights (the two
// train alike within 1e-5), per epoch and on the test split. The old check
// was val_acc > 0 only: an evaluation on stale or partly gathered units (a
// unit left sharded, weights gathered before the last step) passed it.
TEST_CASE("zero3 evaluates shards of different batch counts as ddp does, without a collective per batch") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.dp_precision = ftb::Precision::fp32;
  c.eval_max_batches = 0;  // every evaluation batch
  c.eval_batch_size = 1;   // an odd split gives the ranks different batch counts
  auto w = ftb::build_workload(c);
  for (int count = 301; w.val.size() % 2 == 0 && count < 320; ++count) {
    c.synthetic_count = count;
    w = ftb::build_workload(c);
  }
  REQUIRE(w.val.size() % 2 == 1);
  auto row = [&](ftb::dist::Sharding sharding, bool offload) {
    ftb::ScenarioResult r;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto out = ftb::run_data_parallel(w, c, {}, sharding, e, offload);
      if (e.rank == 0) r = out;
    });
    return r;
  };
  const auto ddp = row(ftb::dist::Sharding::none, false);
  REQUIRE(ddp.status == ftb::Status::ok);
  REQUIRE(!ddp.epochs.empty());
  for (const bool offload : {false, true}) {
    CAPTURE(offload);
    const auto r = row(ftb::dist::Sharding::parameters, offload);
    CHECK(r.status == ftb::Status::ok);
    REQUIRE(r.epochs.size() == ddp.epochs.size());
    for (std::size_t i = 0; i < r.epochs.size(); ++i) {
      CAPTURE(i);
      CHECK(r.epochs[i].val_acc == ddp.epochs[i].val_acc);
      CHECK(r.epochs[i].val_loss == doctest::Approx(ddp.epochs[i].val_loss).epsilon(1e-5));
    }
    CHECK(r.test_acc == ddp.test_acc);
    CHECK(r.test_loss == doctest::Approx(ddp.test_loss).epsilon(1e-5));
  }
}

namespace {

// Counts the loop's starts: a row refused by its budget never trains.
struct TrainStarts : ftb::LoopCallback {
  std::atomic<int> count{0};
  void on_train_start(const ftb::LoopState&) override { ++count; }
};

// The first integer after `key` in `text` (-1 when absent).
int64_t number_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + key.size()));
}

}  // namespace

// The budget is checked on the worst phase: zero3's evaluation keeps every
// unit whole, more than a training step holds. On the old code the check saw
// a training formula only (transient_bytes: 4 x the largest unit + the second
// largest, held in no phase; evaluation never counted): where it fit, the row trained and then
// held more than the budget in evaluation; here it refuses, but names that
// formula's figure, not " in evaluation (" nor the bytes the row holds (and
// memory_phases, the measurement, did not exist).
TEST_CASE("a device budget refuses zero3 whose evaluation does not fit, naming what the row then holds (measured)") {
  auto c = tiny_config();
  c.n_layers = 8;  // blocks enough that every unit whole outweighs a backward step's peak (the embeddings are large)
  c.dropout = 0;
  c.world_size = 2;
  c.dp_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  ftb::ScenarioResult free_run;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto r = ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::parameters, e);
    if (e.rank == 0) free_run = r;
  });
  REQUIRE(free_run.status == ftb::Status::ok);
  const auto& m = free_run.memory_phases;
  CHECK(m.source == "tracked_tensors");
  REQUIRE(m.training.per_rank.size() == 2);
  REQUIRE(m.evaluation.per_rank.size() == 2);
  CHECK(m.evaluation.modelled_bytes > m.training.modelled_bytes);
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    // Evaluation holds exactly what the model of it says: shards, their
    // gradients and Adam state, every unit whole.
    CHECK(m.evaluation.per_rank[rank] == m.evaluation.modelled_bytes);
    // Training holds what its model says (the worst unit's reduce), more
    // than the state kept between steps.
    CHECK(m.training.per_rank[rank] == m.training.modelled_bytes);
    CHECK(m.training.per_rank[rank] > free_run.distributed.param_bytes_per_rank + free_run.distributed.grad_bytes_per_rank +
                                          free_run.distributed.optimizer_state_bytes_per_rank);
  }
  c.max_device_bytes = m.training.modelled_bytes + 1;  // training fits, evaluation does not
  TrainStarts starts;
  ftb::ScenarioContext ctx;
  ctx.callbacks = {&starts};
  std::string why;
  std::mutex mu;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    try {
      ftb::run_data_parallel(w, c, ctx, ftb::dist::Sharding::parameters, e);
    } catch (const std::exception& ex) {
      std::lock_guard<std::mutex> lock(mu);
      why = ex.what();
    }
  });
  CAPTURE(why);
  CHECK(why.find("does not fit max_device_bytes=" + std::to_string(c.max_device_bytes)) == 0);
  CHECK(why.find(" in evaluation (") != std::string::npos);
  CHECK(starts.count == 0);  // refused before any training
  // The figure it named is what the row held in evaluation without the budget.
  CHECK(number_after(why, "a rank needs ") == m.evaluation.per_rank[0]);
}

// zero2's tracked training peak is sampled before a bucket's release too
// (review 6, finding 3): four buckets of 1000, 100, 950 and 10 floats whose
// gradients arrive in bucket order (a chain of products). At bucket 2's
// launch, before bucket 0's release, bucket 0's and 1's copies and bucket 2's
// gradients are alive: 2050 floats above the state; after it 2000 (bucket
// 2's gradients and copy, bucket 1's), and no other sample sees more than
// 2000 (bucket 0's gradients and copy). On the old code (a sample after the
// release only) the peak was 2000 floats above the state: the CHECK fails.
TEST_CASE("zero2: the held peak is sampled before a bucket's release, where an earlier large copy is alive") {
  std::array<int64_t, 2> above{}, modelled{};  // modelled: the model's figure less the peak
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/zero2-release");
    std::vector<torch::Tensor> params;
    for (int64_t n : {10, 950, 100, 1000}) params.push_back(torch::ones({n}).requires_grad_());  // buckets in reverse
    ftb::dist::DataParallelOptions o;
    o.sharding = ftb::dist::Sharding::gradients;
    o.bucket_cap_bytes = o.first_bucket_cap_bytes = 4;  // one parameter a bucket
    ftb::dist::DataParallel dp(params, comm, o);
    REQUIRE(dp.bucket_count() == 4);
    ftb::dist::HeldMemory memory(torch::kCPU);
    dp.memory = &memory;
    dp.zero_grad();
    const int64_t kept = dp.held_bytes();
    memory.enter(ftb::dist::MemoryPhase::training);
    // Backward meets params[3] first, then 2, 1, 0 (bucket order).
    auto h = params[0].sum() * 1e-3;
    h = h * params[1].sum() * 1e-3;
    h = h * params[2].sum() * 1e-3;
    (h * params[3].sum() * 1e-3).backward();
    dp.finish_gradient_sync();
    memory.finish();
    dp.memory = nullptr;
    const auto r = static_cast<std::size_t>(e.rank);
    above[r] = memory.peak(ftb::dist::MemoryPhase::training) - kept;
    modelled[r] = dp.device_bytes_needed(ftb::dist::MemoryPhase::training).total() -
                  memory.peak(ftb::dist::MemoryPhase::training);
  });
  for (std::size_t r = 0; r < 2; ++r) {
    CAPTURE(r);
    CHECK(above[r] == (1000 + 100 + 950) * 4);
    CHECK(modelled[r] >= 0);  // the model (what the budget checks) covers that peak
  }
}

// The fabric row honours max_device_bytes as the other distributed rows do
// (review 6, finding 6). On the old code run_fabric never called
// check_device_budget: the row trained (starts == 2) and returned ok.
TEST_CASE("fabric: a device budget refuses the row before training") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.fabric_precision = ftb::Precision::fp32;
  c.max_device_bytes = 1000;  // far below any strategy's state
  const auto w = ftb::build_workload(c);
  TrainStarts starts;
  ftb::ScenarioContext ctx;
  ctx.callbacks = {&starts};
  std::array<std::string, 2> why;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    try {
      ftb::run_fabric(w, c, ctx, e);
    } catch (const std::exception& ex) {
      why[static_cast<std::size_t>(e.rank)] = ex.what();
    }
  });
  for (const auto& text : why) CHECK(text.find("does not fit max_device_bytes=1000") == 0);
  CHECK(starts.count == 0);
}

// Every strategy's held bytes, measured per phase from its live tensors,
// against its model (what max_device_bytes checks): evaluation holds the state
// kept between steps (zero3: every unit whole besides), training at most the
// model's peak and more than the kept state where a step stages copies. On the
// old code there was no measurement (memory_phases empty) and the budget's
// figure was training's only.
TEST_CASE("memory measured per phase: every strategy within what its model says") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.bucket_mb = 0.01;  // several buckets
  c.dp_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  using S = ftb::dist::Sharding;
  for (const auto& [sharding, offload] : std::vector<std::pair<S, bool>>{
           {S::none, false}, {S::optimizer, false}, {S::gradients, false}, {S::gradients, true},
           {S::parameters, false}, {S::parameters, true}}) {
    CAPTURE(ftb::dist::to_string(sharding));
    CAPTURE(offload);
    ftb::ScenarioResult r;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto out = ftb::run_data_parallel(w, c, {}, sharding, e, offload);
      if (e.rank == 0) r = out;
    });
    REQUIRE(r.status == ftb::Status::ok);
    const auto& m = r.memory_phases;
    const auto& d = r.distributed;
    const int64_t kept = d.param_bytes_per_rank + d.grad_bytes_per_rank + (offload ? 0 : d.optimizer_state_bytes_per_rank);
    REQUIRE(m.training.per_rank.size() == 2);
    for (int rank = 0; rank < 2; ++rank) {
      CAPTURE(rank);
      CHECK(m.evaluation.per_rank[rank] == m.evaluation.modelled_bytes);
      CHECK(m.training.per_rank[rank] <= m.training.modelled_bytes);
      if (sharding == S::none) CHECK(m.training.per_rank[rank] == kept);  // ddp stages nothing
      else CHECK(m.training.per_rank[rank] > kept);  // reduce-scatter copies, all-gather sends, gathered units
    }
    if (sharding != S::parameters) CHECK(m.evaluation.modelled_bytes == kept);
    CHECK(r.extra.at("device_bytes_needed").get<int64_t>() ==
          std::max(m.training.modelled_bytes, m.evaluation.modelled_bytes));
  }
}

// An independent CPU figure for the tracked one (review 6, finding 4): a
// counting allocator (tests/counting_allocator.h) installed as LibTorch's CPU
// allocator for the row sees every CPU tensor, activations and autocast's
// casts included. It is process-wide: the ranks are threads here, so its peak
// is both ranks' together (and the loaders'). At rank r's tracked peak the
// other rank holds at least its state kept between steps, so rank r's tracked
// figure plus the other's kept state cannot exceed the allocator's peak above
// its baseline: a tracked figure that counted a storage not alive (or twice)
// fails it. Under bf16-mixed zero3 gathers its units in bf16 (FSDP's
// param_dtype): autocast has no weight casts to make, and both tracking and
// the allocator see the units at half their fp32 bytes (by how much:
// tests/test_fully_sharded_precision.cpp). The figures are printed (MESSAGE)
// for the record.
TEST_CASE("zero3's tracked bytes within a counting CPU allocator's peak, in fp32 and bf16-mixed") {
  using ftb_test::CountingCpuAllocator;
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.batch_size = 2, c.max_length = 8;  // activations small beside the weights: the casts show
  // No loader thread: its batches, made while the steps run, are one more
  // source of allocations inside the window that are not the row's (the
  // one-rank figures below take a median for the rest).
  c.prefetch = 0;
  const auto w = ftb::build_workload(c);
  struct Outcome {
    int64_t above_baseline = 0;  // the allocator's peak during the row, less its live bytes before
    int64_t training = 0;        // its peak over the training steps, less its live bytes at their start
    ftb::ScenarioResult r;
  };
  // The training steps' window (the first epoch's), the same for both ranks:
  // it opens when every rank has started training (the last to arrive resets
  // the peak; the others wait for it), the first to end reads it. A rank
  // whose broadcast returned first must not open it while the other still
  // holds its set-up's whole model (zero3 under bf16-mixed: the fp32 whole
  // and the bf16 units), freed inside the window: the window's figure then
  // fell below one rank's (seen as 163,836 against 242,560 tracked).
  struct TrainingWindow : ftb::LoopCallback {
    std::mutex mu;
    std::condition_variable all_started;
    int world = 1, started = 0, ended = 0;
    int64_t start_live = 0, peak = 0, before = 0;  // before: the row's peak up to the window
    void on_train_start(const ftb::LoopState&) override {
      std::unique_lock<std::mutex> lock(mu);
      if (++started < world) {
        // Bounded: a rank that failed before training would leave this one
        // waiting for ever (the test hung); it fails the test instead.
        if (!all_started.wait_for(lock, std::chrono::seconds(120), [&] { return started >= world; }))
          throw std::runtime_error("TrainingWindow: " + std::to_string(world - started) +
                                   " rank(s) did not start training within 120 s");
        return;
      }
      auto& a = CountingCpuAllocator::instance();
      before = a.peak();
      start_live = a.live();
      a.reset_peak();
      all_started.notify_all();
    }
    void on_epoch_steps(const ftb::LoopState&, const std::vector<ftb::StepRecord>&) override {
      std::lock_guard<std::mutex> lock(mu);
      if (ended++ == 0) peak = CountingCpuAllocator::instance().peak() - start_live;
    }
  };
  auto run = [&](ftb::Precision precision, int world) {
    c.dp_precision = precision;
    c.world_size = world;
    Outcome out;
    CountingCpuAllocator::Scope scope;
    if (!CountingCpuAllocator::Scope::active()) return out;
    auto& a = CountingCpuAllocator::instance();
    const int64_t baseline = a.live();
    a.reset_peak();
    TrainingWindow window;
    window.world = world;
    ftb::ScenarioContext ctx;
    ctx.callbacks = {&window};
    run_ranks(world, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_data_parallel(w, c, ctx, ftb::dist::Sharding::parameters, e);
      if (e.rank == 0) out.r = r;
    });
    out.above_baseline = std::max(window.before, a.peak()) - baseline;
    out.training = window.peak;
    return out;
  };
  const auto fp32 = run(ftb::Precision::fp32, 2);
  if (fp32.above_baseline == 0) FTB_SKIP_CASE("LibTorch did not take the counting CPU allocator (c10::SetCPUAllocator)");
  const auto bf16 = run(ftb::Precision::bf16_mixed, 2);
  for (const auto* o : {&fp32, &bf16}) {
    REQUIRE(o->r.status == ftb::Status::ok);
    const auto& d = o->r.distributed;
    const int64_t kept = d.param_bytes_per_rank + d.grad_bytes_per_rank + d.optimizer_state_bytes_per_rank;
    const auto& m = o->r.memory_phases;
    REQUIRE(m.training.per_rank.size() == 2);
    MESSAGE(ftb::to_string(o->r.precision) << ", 2 ranks: allocator peak above baseline " << o->above_baseline
                                           << " bytes (both ranks), over training's steps above their start "
                                           << o->training << "; tracked per rank: training "
                                           << m.training.per_rank[0] << ", evaluation " << m.evaluation.per_rank[0]
                                           << "; kept " << kept << "; parameters " << o->r.parameter_count);
    for (int rank = 0; rank < 2; ++rank) {
      CAPTURE(rank);
      CHECK(m.training.per_rank[rank] + kept <= o->above_baseline);
      CHECK(m.evaluation.per_rank[rank] + kept <= o->above_baseline);
      // Above the state kept (alive at the window's start), what tracking
      // saw in a step is within what the allocator saw over the steps.
      CHECK(m.training.per_rank[rank] - kept <= o->training);
    }
  }
  // bf16's units are gathered in bf16: tracking tells the precisions apart.
  CHECK(bf16.r.memory_phases.training.per_rank[0] < fp32.r.memory_phases.training.per_rank[0]);
  // On one rank (the 2-rank window depends on how the threads' peaks overlap)
  // the allocator's figure over the steps is deterministic: tracking sees
  // within it and nearly all of it (the step's peak is zero3's reduce of the
  // embeddings at the end of backward, where the strategy's tensors are
  // almost all that is alive). A tracked figure that missed a peak (a sample
  // point short) falls below 95 % of it, in fp32 and in bf16-mixed (whose
  // units, gathered in bf16, leave autocast no weight cast to make).
  // The median of five runs: other threads' allocations and frees inside the
  // window (the process's pools and its threads' teardown; seen only under
  // load, 1 run in 8 with another test beside it: 238,368 or 294,952 against
  // 242,856 alone, bf16-mixed) move the allocator's figure either way now
  // and then; the median is the row's own.
  auto median_of_five = [&](ftb::Precision p) {
    std::vector<Outcome> runs;
    for (int k = 0; k < 5; ++k) runs.push_back(run(p, 1));
    std::sort(runs.begin(), runs.end(), [](const Outcome& x, const Outcome& y) { return x.training < y.training; });
    return runs[2];
  };
  const auto fp32_one = median_of_five(ftb::Precision::fp32), bf16_one = median_of_five(ftb::Precision::bf16_mixed);
  for (const auto* o : {&fp32_one, &bf16_one}) {
    const auto& d = o->r.distributed;
    const int64_t kept = d.param_bytes_per_rank + d.grad_bytes_per_rank + d.optimizer_state_bytes_per_rank;
    const int64_t tracked_above_kept = o->r.memory_phases.training.per_rank.at(0) - kept;
    MESSAGE(ftb::to_string(o->r.precision) << ", 1 rank: allocator over training's steps " << o->training
                                           << " bytes above their start; tracked " << tracked_above_kept
                                           << " above the kept state (" << kept << ")");
    CHECK(tracked_above_kept <= o->training);
    CHECK(tracked_above_kept >= 0.95 * static_cast<double>(o->training));
  }
}

// What the CPU tracking costs inside a timed step (review 6, finding 7):
// zero3 on 2 ranks, the quick preset's model and batch and the tiny config's
// (the shortest step: the worst case for a fixed cost), steps with the
// tracking on (the row's HeldMemory) and off (none), interleaved in blocks of
// 5, 8 blocks each; the ratio of the medians of step time and, apart, the
// time of held_bytes() itself times its calls per step. A measurement, not a
// check (timing on shared cores): it runs where FTB_MEASURE_TRACKING=1 and
// prints its figures, and skips elsewhere.
TEST_CASE("zero3: the CPU tracking's cost per step, measured (FTB_MEASURE_TRACKING=1)") {
  if (std::getenv("FTB_MEASURE_TRACKING") == nullptr)
    FTB_SKIP_CASE("a timing measurement: set FTB_MEASURE_TRACKING=1 to run it");
  for (const std::string config : {"quick", "tiny"}) {
  auto c = config == "quick" ? ftb::preset_config("quick") : tiny_config();
  c.dropout = 0;
  const auto w = ftb::build_workload(c);
  std::vector<double> on_s, off_s;
  double held_call_s = 0;
  int64_t calls_per_step = 0;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/tracking-cost/" + config, 120);
    ftb::SequenceClassifier model = nullptr;
    {
      static std::mutex mu;
      std::lock_guard<std::mutex> lock(mu);
      torch::manual_seed(3);
      model = w.make_model();
    }
    ftb::dist::DataParallelOptions o;
    o.sharding = ftb::dist::Sharding::parameters;
    auto sync = ftb::dist::make_gradient_sync(model, comm, o);
    sync->broadcast_parameters(0);
    auto g = at::make_generator<at::CPUGeneratorImpl>(11 + e.rank);
    const auto ids = torch::randint(1, w.model_config.vocab_size, {c.batch_size, c.max_length}, g, torch::kLong);
    const auto labels = torch::randint(0, 2, {c.batch_size}, g, torch::kLong);
    ftb::dist::HeldMemory memory(torch::kCPU);
    memory.enter(ftb::dist::MemoryPhase::training);
    auto step = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      sync->zero_grad();
      torch::cross_entropy_loss(model->forward(ids, torch::ones_like(ids)), labels).backward();
      sync->finish_gradient_sync();
      sync->step();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    for (int i = 0; i < 3; ++i) step();  // warm-up
    for (int block = 0; block < 16; ++block) {
      const bool on = block % 2 == 0;
      sync->memory = on ? &memory : nullptr;
      for (int i = 0; i < 5; ++i) {
        const double t = step();
        if (e.rank == 0) (on ? on_s : off_s).push_back(t);
      }
    }
    sync->memory = nullptr;
    if (e.rank == 0) {
      const int n = 2000;
      const auto t0 = std::chrono::steady_clock::now();
      int64_t sink = 0;
      for (int i = 0; i < n; ++i) sink += sync->held_bytes();
      held_call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
      REQUIRE(sink > 0);  // the calls were made (not optimised away)
      // held_bytes() calls a tracked step made, counted (the count's formula
      // is pinned by the test below).
      calls_per_step = memory.samples(ftb::dist::MemoryPhase::training) / static_cast<int64_t>(on_s.size());
    }
  });
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double on = median(on_s), off = median(off_s);
  MESSAGE("zero3, 2 ranks, " << config << " config: step median " << on * 1e3 << " ms tracked, " << off * 1e3
                                                        << " ms untracked: ratio " << on / off << "; held_bytes() "
                                                        << held_call_s * 1e6 << " us a call x " << calls_per_step
                                                        << " a step = " << 100 * held_call_s * calls_per_step / off
                                                        << " % of the untracked step");
  }
}

// The count the cost above multiplies: a tracked zero3 step samples held
// bytes once per gather issued (every unit in forward, all but the last
// again in backward), once per unit's reduce and once more before each wait
// on a reduce (all but the first two), and nowhere else; an untracked step
// samples nothing.
TEST_CASE("zero3: a tracked step samples held bytes once per gather, reduce and wait, an untracked one never") {
  auto c = tiny_config();
  c.dropout = 0;
  const auto w = ftb::build_workload(c);
  std::vector<int64_t> per_step;  // rank 0's samples in each of 3 tracked steps
  int64_t untracked = -1, units = 0;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/tracking-count", 120);
    ftb::SequenceClassifier model = nullptr;
    {
      static std::mutex mu;
      std::lock_guard<std::mutex> lock(mu);
      torch::manual_seed(3);
      model = w.make_model();
    }
    ftb::dist::DataParallelOptions o;
    o.sharding = ftb::dist::Sharding::parameters;
    auto sync = ftb::dist::make_gradient_sync(model, comm, o);
    sync->broadcast_parameters(0);
    auto g = at::make_generator<at::CPUGeneratorImpl>(11 + e.rank);
    const auto ids = torch::randint(1, w.model_config.vocab_size, {c.batch_size, c.max_length}, g, torch::kLong);
    const auto labels = torch::randint(0, 2, {c.batch_size}, g, torch::kLong);
    auto memory = std::make_unique<ftb::dist::HeldMemory>(torch::kCPU);
    memory->enter(ftb::dist::MemoryPhase::training);
    auto step = [&] {
      sync->zero_grad();
      torch::cross_entropy_loss(model->forward(ids, torch::ones_like(ids)), labels).backward();
      sync->finish_gradient_sync();
      sync->step();
    };
    step();  // untracked
    const int64_t after_untracked = memory->samples(ftb::dist::MemoryPhase::training);
    sync->memory = memory.get();
    for (int i = 0; i < 3; ++i) {
      const int64_t before = memory->samples(ftb::dist::MemoryPhase::training);
      step();
      if (e.rank == 0) per_step.push_back(memory->samples(ftb::dist::MemoryPhase::training) - before);
    }
    sync->memory = nullptr;
    if (e.rank == 0) {
      untracked = after_untracked;
      units = static_cast<int64_t>(sync->bucket_count());
    }
  });
  REQUIRE(units >= 3);
  CHECK(untracked == 0);
  const int64_t expected = units + (units - 1) + units + (units - 2);
  for (int64_t n : per_step) CHECK(n == expected);
  MESSAGE("zero3, " << units << " units: " << expected << " samples a step");
}

// On a GPU a phase's held bytes are the caching allocator's peak, reset when
// the phase changes: 64 MiB alive in training only, 128 MiB in evaluation
// only. Without the reset the training figure would carry evaluation's (or the
// reverse, as the row's one peak did before). Skips without CUDA.
TEST_CASE("held memory on a GPU: each phase's peak is the caching allocator's, reset at the change") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check runs this)");
  using ftb::dist::MemoryPhase;
  const torch::Device device("cuda:0");
  const int64_t mib = int64_t{1} << 20;
  ftb::dist::HeldMemory m(device);
  CHECK_FALSE(m.tracks_tensors());
  CHECK(m.source() == "cuda_max_allocated");
  m.enter(MemoryPhase::evaluation);
  { auto t = torch::empty({128 * mib / 4}, torch::TensorOptions().dtype(torch::kFloat).device(device)); }
  m.enter(MemoryPhase::training);
  { auto t = torch::empty({64 * mib / 4}, torch::TensorOptions().dtype(torch::kFloat).device(device)); }
  m.finish();
  CHECK(m.peak(MemoryPhase::training) >= 64 * mib);
  CHECK(m.peak(MemoryPhase::training) < 128 * mib);
  CHECK(m.peak(MemoryPhase::evaluation) >= 128 * mib);
}

// The CPU's figure: the samples of the phase they fall in, none outside one.
TEST_CASE("held memory on a CPU: samples count for the current phase only") {
  using ftb::dist::MemoryPhase;
  ftb::dist::HeldMemory m(torch::kCPU);
  REQUIRE(m.tracks_tensors());
  m.sample(1000);  // before the loop (the set-up): not a phase
  m.enter(MemoryPhase::training);
  m.sample(300);
  m.sample(200);
  m.enter(MemoryPhase::evaluation);
  m.sample(100);
  m.finish();
  m.sample(5000);  // after the loop
  CHECK(m.peak(MemoryPhase::training) == 300);
  CHECK(m.peak(MemoryPhase::evaluation) == 100);
  CHECK(m.source() == "tracked_tensors");
  // Views of one buffer count once; a freed (resized to 0) storage counts 0.
  auto buffer = torch::zeros({10});
  CHECK(ftb::dist::storage_bytes({buffer, buffer.narrow(0, 2, 3), torch::Tensor(), torch::zeros({5})}) == 60);
}

// Training resumes after evaluation with zero3's units freed before the
// training phase's memory counts (review 6, finding 1). On the old code the
// units evaluation kept whole stayed until the first training forward's unit
// 0: on a GPU the peak reset at the change of phase then started training's
// figure at evaluation's; here the bytes held right after the change still
// had every unit whole (held > kept), and the CHECK fails.
TEST_CASE("zero3: entering training frees every unit evaluation kept whole, before training's memory counts") {
  std::array<int64_t, 2> in_evaluation{}, after_change{}, kept{};
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/end-evaluation");
    auto model = make_model();
    ftb::dist::DataParallelOptions o;
    o.sharding = ftb::dist::Sharding::parameters;
    o.lr = kLr;
    auto sync = ftb::dist::make_gradient_sync(model, comm, o);
    sync->broadcast_parameters(0);
    ftb::RowPhases phases(*sync, *comm);
    const ftb::LoopState state;
    phases.on_epoch_steps(state, {});  // evaluation
    {
      torch::NoGradGuard no_grad;
      const auto b = global_batch(0, kPerRank);
      loss_of(model, b.ids, b.labels);  // evaluation's forward: every unit gathered and kept
    }
    const auto r = static_cast<std::size_t>(e.rank);
    in_evaluation[r] = sync->held_bytes();
    phases.on_epoch_start(state);  // training resumes
    after_change[r] = sync->held_bytes();
    kept[r] = sync->parameter_bytes() + sync->gradient_bytes() + sync->optimizer_state_bytes();
    phases.finish();
  });
  for (std::size_t r = 0; r < 2; ++r) {
    CAPTURE(r);
    CHECK(in_evaluation[r] > kept[r]);  // the units were whole (else the test proves nothing)
    CHECK(after_change[r] == kept[r]);  // the shards' state only
  }
}

// The same on a GPU, end to end: from the second epoch on, training starts
// after an evaluation that held every unit whole. With the units freed first,
// training's allocator peak stays below evaluation's on a model of many small
// blocks (the state 16 psi, a few units besides in training; evaluation 20
// psi); on the old code the reset at epoch 2's start read the whole model
// alive, so training's figure was at least evaluation's. Skips without CUDA.
TEST_CASE("zero3 on a GPU: training holds less than evaluation from the second epoch on") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check runs this)");
  auto c = tiny_config();
  c.device = "cuda";
  c.dim = 64, c.hidden_dim = 256, c.n_layers = 8;  // psi in blocks, each a small unit
  c.batch_size = 2, c.max_length = 16;              // activations small beside the state
  c.epochs = 2;
  c.dropout = 0;
  c.dp_precision = ftb::Precision::fp32;
  c.world_size = 1;
  const auto w = ftb::build_workload(c);
  ftb::ScenarioResult r;
  run_ranks(1, [&](const ftb::DistEnv& e) { r = ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::parameters, e); });
  REQUIRE(r.status == ftb::Status::ok);
  REQUIRE(r.memory_phases.source == "cuda_max_allocated");
  CHECK(r.memory_phases.training.peak_bytes() < r.memory_phases.evaluation.peak_bytes());
}

// The row's peak on a GPU is the allocator's over the whole row, across the
// phases' resets, the time before the first phase included (review 6,
// finding 5). On the old code the row's peak was the larger phase's, so the
// 256 MiB alive before the loop was lost (the first enter() reset it).
TEST_CASE("held memory on a GPU: the row's peak spans the phases' resets and the time before them") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check runs this)");
  using ftb::dist::MemoryPhase;
  const torch::Device device("cuda:0");
  const int64_t mib = int64_t{1} << 20;
  ftb::reset_peak_memory(device);
  ftb::dist::HeldMemory m(device);
  { auto t = torch::empty({256 * mib / 4}, torch::TensorOptions().dtype(torch::kFloat).device(device)); }
  m.enter(MemoryPhase::training);
  { auto t = torch::empty({64 * mib / 4}, torch::TensorOptions().dtype(torch::kFloat).device(device)); }
  m.enter(MemoryPhase::evaluation);
  m.finish();
  CHECK(m.peak(MemoryPhase::training) < 128 * mib);
  CHECK(m.row_peak() >= 256 * mib);
}

// Training's collective bytes per step are the steps' own; evaluation's come
// apart. Expected from the unit sizes: a step all-gathers every unit in
// forward and all but the last again in backward; each validation pass
// gathers every unit once (the test pass after it finds them whole). On the
// old code collective_bytes_per_step["all_gather"] had the validation's
// gathers divided into it (larger than expected) and
// evaluation_collective_bytes did not exist.
TEST_CASE("zero3's collective bytes: training per step and evaluation apart") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.epochs = 2;
  c.dp_precision = ftb::Precision::fp32;
  const auto w = ftb::build_workload(c);
  ftb::ScenarioResult r;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto out = ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::parameters, e);
    if (e.rank == 0) r = out;
  });
  REQUIRE(r.status == ftb::Status::ok);
  auto model = w.make_model();
  int64_t all = 0, last = 0;
  for (const auto& unit : model->parameter_units()) {
    int64_t numel = 0;
    for (const auto& p : unit) numel += p.numel();
    last = (numel + 1) / 2 * 2 * 4;  // padded to the 2 ranks, fp32
    all += last;
  }
  const auto& d = r.distributed;
  CHECK(d.collective_bytes_per_step.at("all_gather") == 2 * all - last);
  REQUIRE(r.epochs.size() == 2);
  CHECK(d.evaluation_collective_bytes.at("all_gather") == 2 * all);
  CHECK(d.evaluation_collective_bytes.count("reduce_scatter") == 0);  // no gradient in evaluation
  CHECK(d.evaluation_collective_bytes.at("all_reduce") > 0);          // the metric sums
  CHECK(r.parameter_count == [&] {
    int64_t n = 0;
    for (const auto& p : model->parameters()) n += p.numel();
    return n;
  }());
}

namespace {

// Two micro-batches' backwards on `world` ranks before one optimizer step,
// with the gradient collectives finished after each (as Fabric::backward
// does) or only after both; the error each rank met ("" = none).
std::string second_backward_error(ftb::dist::Sharding sharding, bool offload, bool finish_between) {
  std::string error;
  std::mutex mu;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = join(e, "test/twice/" + ftb::dist::to_string(sharding) + (offload ? "_offload" : ""));
    auto model = make_model();
    ftb::dist::DataParallelOptions o;
    o.sharding = sharding;
    o.offload = offload;
    o.bucket_cap_bytes = kSmallBuckets;
    const auto sync = ftb::dist::make_gradient_sync(model, comm, o);
    sync->broadcast_parameters(0);
    sync->zero_grad();
    try {
      for (int micro = 0; micro < 2; ++micro) {
        const auto g = global_batch(micro, 2 * kPerRank);
        loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank), g.labels.narrow(0, e.rank * kPerRank, kPerRank))
            .backward();
        if (finish_between || micro == 1) sync->finish_gradient_sync();
      }
      sync->step();
    } catch (const std::exception& ex) {
      std::lock_guard<std::mutex> lock(mu);
      error = ex.what();
    }
  });
  return error;
}

}  // namespace

// On the old code the second backward was accepted: zero3 skipped the unit
// (its ready count had passed the unit's size), so the step used the first
// micro-batch only; ddp added unreduced local gradients to the averaged ones
// (the ranks diverged). Every error string was empty.
TEST_CASE("a second backward before zero_grad is an error naming accumulate, for every data-parallel strategy") {
  using S = ftb::dist::Sharding;
  const std::vector<std::pair<S, bool>> rows = {{S::none, false},      {S::optimizer, false}, {S::optimizer, true},
                                                {S::gradients, false}, {S::gradients, true},  {S::parameters, false},
                                                {S::parameters, true}};
  for (const auto& [sharding, offload] : rows) {
    for (const bool finish_between : {true, false}) {
      CAPTURE(ftb::dist::to_string(sharding));
      CAPTURE(offload);
      CAPTURE(finish_between);
      const std::string error = second_backward_error(sharding, offload, finish_between);
      CHECK(error.find("a second backward before zero_grad()") == 0);  // the strategy's own line, not wrapped
      CHECK(error.find("accumulate") != std::string::npos);
      CHECK(error.find(ftb::dist::to_string(sharding)) != std::string::npos);
      CHECK(error.find('\n') == std::string::npos);
    }
  }
}

// Fabric::backward invites accumulation: on the old code two backwards and
// one step went through without a word.
TEST_CASE("fabric: two backwards before a step are refused") {
  for (const std::string strategy : {"ddp", "zero2", "zero3"}) {
    CAPTURE(strategy);
    std::string error;
    std::mutex mu;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      ftb::FabricOptions fo;
      fo.accelerator = "cpu";
      fo.strategy = ftb::parse_choice<ftb::Strategy>(strategy, "fabric_strategy");
      fo.group_name = "test/fabric-twice/" + strategy;
      ftb::Fabric fabric(fo);
      fabric.launch(e);
      auto model = make_model();
      auto& optimizer = fabric.setup(model, {kLr});
      optimizer.zero_grad();
      try {
        for (int micro = 0; micro < 2; ++micro) {
          const auto g = global_batch(micro, 2 * kPerRank);
          fabric.backward(loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank),
                                  g.labels.narrow(0, e.rank * kPerRank, kPerRank)));
        }
        optimizer.step();
      } catch (const std::exception& ex) {
        std::lock_guard<std::mutex> lock(mu);
        error = ex.what();
      }
    });
    CHECK(error.find("accumulate") != std::string::npos);
  }
}

// An optimizer step after backwards inside no_backward_sync only (every
// micro-batch's): refused naming accumulate. On the code before review 28's
// fix ddp stepped on unreduced gradients, zero2 and zero3 on the previous
// step's shard gradients, without a word (error empty).
TEST_CASE("fabric: a step after backwards inside no_backward_sync only is refused") {
  for (const std::string strategy : {"ddp", "zero2", "zero3"}) {
    CAPTURE(strategy);
    std::vector<std::string> errors(2);
    run_ranks(2, [&](const ftb::DistEnv& e) {
      ftb::FabricOptions fo;
      fo.accelerator = "cpu";
      fo.strategy = ftb::parse_choice<ftb::Strategy>(strategy, "fabric_strategy");
      fo.group_name = "test/fabric-unsynced/" + strategy;
      ftb::Fabric fabric(fo);
      fabric.launch(e);
      auto model = make_model();
      auto& optimizer = fabric.setup(model, {kLr});
      optimizer.zero_grad();
      try {
        for (int micro = 0; micro < 2; ++micro) {
          const auto g = global_batch(micro, 2 * kPerRank);
          auto no_sync = fabric.no_backward_sync(true);
          fabric.backward(loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank),
                                  g.labels.narrow(0, e.rank * kPerRank, kPerRank)));
        }
        optimizer.step();
      } catch (const std::exception& ex) {
        errors[static_cast<std::size_t>(e.rank)] = ex.what();
      }
    });
    for (const auto& error : errors) CHECK(error.find("accumulate") != std::string::npos);
  }
}

// zero3 accumulating with a parameter that gets no gradient (frozen here,
// as an unused one): its unit never becomes ready in backward, so what its
// other parameters got must go into the unit's buffer after each sync-off
// backward (finish_gradient_sync, now called inside no_backward_sync too).
// On the old Fabric::backward, which skipped it there, the second
// micro-batch's backward was refused as a second backward.
TEST_CASE("fabric zero3: accumulating with a parameter that gets no gradient") {
  std::vector<std::string> errors(2);
  std::vector<double> moved(2, 0.0), frozen_moved(2, 1.0);
  run_ranks(2, [&](const ftb::DistEnv& e) {
    ftb::FabricOptions fo;
    fo.accelerator = "cpu";
    fo.strategy = ftb::Strategy::zero3;
    fo.group_name = "test/fabric-unused";
    ftb::Fabric fabric(fo);
    fabric.launch(e);
    auto model = make_model();
    auto& optimizer = fabric.setup(model, {kLr});
    auto frozen = model->parameters().back();
    frozen.requires_grad_(false);
    auto& units = dynamic_cast<ftb::dist::FullyShardedUnits&>(fabric.strategy());
    const auto before = units.master_parameters();  // the units are sharded: the parameters hold no storage
    try {
      optimizer.zero_grad();
      for (int micro = 0; micro < 3; ++micro) {
        const auto g = global_batch(micro, 2 * kPerRank);
        auto no_sync = fabric.no_backward_sync(micro < 2);
        fabric.backward(loss_of(model, g.ids.narrow(0, e.rank * kPerRank, kPerRank),
                                g.labels.narrow(0, e.rank * kPerRank, kPerRank)) /
                        3);
      }
      optimizer.step();
    } catch (const std::exception& ex) {
      errors[static_cast<std::size_t>(e.rank)] = ex.what();
    }
    const auto after = units.master_parameters();
    double m = 0;
    for (std::size_t i = 0; i + 1 < after.size(); ++i) m = std::max(m, (after[i] - before[i]).abs().max().item<double>());
    moved[static_cast<std::size_t>(e.rank)] = m;
    frozen_moved[static_cast<std::size_t>(e.rank)] = (after.back() - before.back()).abs().max().item<double>();
  });
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    CHECK(errors[static_cast<std::size_t>(rank)].empty());
    CHECK(moved[static_cast<std::size_t>(rank)] > 1e-5);        // the step ran on the accumulated gradients
    CHECK(frozen_moved[static_cast<std::size_t>(rank)] == 0.0);  // no gradient, no Adam update
  }
}

// On the old code this timed out (dist_timeout_s) instead of returning:
// zero3's ranks with the one validation example gathered the units at their
// first batch while the three without a batch went on to the sum of the
// metrics, so the collectives never matched.
TEST_CASE("distributed evaluation finishes on 4 ranks with 1 validation example, as one process on the same weights") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 4;
  c.dp_precision = c.fabric_precision = ftb::Precision::fp32;
  c.fabric_strategy = ftb::Strategy::zero3;
  c.eval_max_batches = 0;
  c.lr = 0;                // the weights stay the initial ones, so one process can evaluate the same
  c.dist_timeout_s = 10;   // a hang fails the test within this
  auto w = ftb::build_workload(c);
  for (auto* split : {&w.val, &w.test}) {
    REQUIRE(split->size() >= 1);
    split->input_ids.resize(1);
    split->labels.resize(1);
  }
  // One process, the same initial weights and example.
  auto model = w.make_model();
  ftb::BatchLoader val(w.val, w.eval_loader_options(c)), test(w.test, w.eval_loader_options(c));
  const auto single_val = ftb::evaluate(model, val, torch::kCPU, 0);
  const auto single_test = ftb::evaluate(model, test, torch::kCPU, 0);
  using S = ftb::dist::Sharding;
  for (const auto& [row, sharding, offload] : std::vector<std::tuple<std::string, S, bool>>{
           {"ddp", S::none, false}, {"zero3", S::parameters, false}, {"zero3_offload", S::parameters, true},
           {"fabric", S::parameters, false}}) {
    CAPTURE(row);
    ftb::ScenarioResult r;
    run_ranks(4, [&](const ftb::DistEnv& e) {
      auto out = row == "fabric" ? ftb::run_fabric(w, c, {}, e) : ftb::run_data_parallel(w, c, {}, sharding, e, offload);
      if (e.rank == 0) r = out;
    });
    CHECK(r.status == ftb::Status::ok);
    REQUIRE(r.epochs.size() == 1);
    CHECK(r.epochs[0].val_acc == single_val.acc);
    CHECK(r.epochs[0].val_loss == doctest::Approx(single_val.loss).epsilon(1e-5));
    CHECK(r.test_acc == single_test.acc);
    CHECK(r.test_loss == doctest::Approx(single_test.loss).epsilon(1e-5));
  }
}

// Issue 47: the test pass's per-example hits, gathered from 3 ranks' shards
// (an odd split: DistributedSampler's padding scores one example twice) into
// the split's order, equal one process's on the same weights (lr 0), example
// by example; eval_max_batches capping the pass keeps none.
TEST_CASE("distributed rows keep the test split's per-example hits in its order, as one process does") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 3;
  c.dp_precision = ftb::Precision::fp32;
  c.eval_max_batches = 0;
  c.lr = 0;
  auto w = ftb::build_workload(c);
  if (w.test.size() % 3 == 0) {
    w.test.input_ids.pop_back();
    w.test.labels.pop_back();
  }
  REQUIRE(w.test.size() % 3 != 0);
  auto model = w.make_model();
  ftb::BatchLoader test(w.test, w.eval_loader_options(c));
  const auto single = ftb::evaluate(model, test, torch::kCPU, 0, nullptr, nullptr, /*per_example=*/true);
  REQUIRE(single.correct.size() == w.test.size());
  int right = 0;
  for (const bool b : single.correct) right += b;
  CHECK(right == doctest::Approx(single.acc * static_cast<double>(w.test.size())));
  CHECK(right > 0);
  CHECK(right < static_cast<int>(w.test.size()));  // both kinds present: a shuffled order would show
  ftb::ScenarioResult r;
  run_ranks(3, [&](const ftb::DistEnv& e) {
    auto out = ftb::run_data_parallel(w, c, {}, ftb::dist::Sharding::none, e, false);
    if (e.rank == 0) r = out;
  });
  REQUIRE(r.status == ftb::Status::ok);
  REQUIRE(r.repeats.size() == 1);
  CHECK(r.repeats[0].test_correct == single.correct);
  CHECK(ftb::evaluate(model, test, torch::kCPU, 1, nullptr, nullptr, true).correct.empty());
}

// The group's first collectives: only a back end's "does not support <op>"
// falls back (zero2's reduce-scatter as an all-reduce, 2x the traffic); any
// other error, as NCCL's communicator initialisation failing inside its first
// collective, fails the row with the back end's message. Fails on the old
// code: every exception was recorded as "no _reduce_scatter_base".
TEST_CASE("probe_collectives: a missing op falls back, any other error fails the row with its message") {
  CHECK(ftb::dist::probe_collective("nccl", "_reduce_scatter_base", [] {}));
  CHECK_FALSE(ftb::dist::probe_collective("nccl", "_reduce_scatter_base", [] {
    TORCH_CHECK(false, "Backend nccl does not support _reduce_scatter_base");
  }));
  auto init_fails = [] {
    ftb::dist::probe_collective("nccl", "_reduce_scatter_base", [] {
      TORCH_CHECK(false, "NCCL error in: ProcessGroupNCCL.cpp:2063, unhandled system error\nLast error: socket");
    });
    return ftb::ScenarioResult{};
  };
  const ftb::ScenarioInfo* info = ftb::find_scenario("zero2");
  REQUIRE(info != nullptr);
  ftb::ScenarioResult row;
  ftb::run_repeat(row, *info, ftb::Workload{}, ftb::RunConfig{}, ftb::ScenarioContext{},
                  [&](const ftb::Workload&, const ftb::RunConfig&, const ftb::ScenarioContext&) { return init_fails(); });
  CHECK(row.status == ftb::Status::failed);
  CHECK(row.reason.find("nccl _reduce_scatter_base") != std::string::npos);
  CHECK(row.reason.find("unhandled system error") != std::string::npos);
}
