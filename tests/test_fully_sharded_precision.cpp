// zero3 (FullyShardedUnits) in mixed precision as FSDP's MixedPrecision does
// it (units gathered and computed in the compute dtype, fp32 shards the
// master, gradients reduced in fp32), and its gradient accumulation
// (set_sync, FSDP's no_sync). Ranks are threads (tests/rank_threads.h).
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "core/model/classifier.h"
#include "core/train/autocast.h"
#include "core/train/optimizer.h"
#include "core/train/workload.h"
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/parallel/fully_sharded.h"
#include "scenarios/result.h"
#include "reports/views/memory_table.h"
#include "tests/counting_allocator.h"
#include "tests/rank_threads.h"
#include "tests/skip.h"
#include "tests/tensor_checks.h"
#include "tests/tiny_config.h"

namespace zero3_precision_test {
namespace {

using ftb_test::max_abs_diff;
using ftb_test::run_ranks;

ftb::SequenceClassifier make_model() {
  static std::mutex mu;  // the global generator: one model at a time
  std::lock_guard<std::mutex> lock(mu);
  torch::manual_seed(11);
  ftb::ModelConfig c;
  c.vocab_size = 60, c.dim = 32, c.n_heads = 2, c.hidden_dim = 64, c.n_layers = 2, c.max_position_embeddings = 16;
  c.dropout = c.attention_dropout = c.seq_classif_dropout = 0.0;
  return ftb::make_classifier(c);
}

struct Rows {
  torch::Tensor ids, labels;
};
Rows rows_of(int step, int64_t n) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(500 + step);
  return {torch::randint(1, 60, {n, 12}, g, torch::kLong), torch::randint(0, 2, {n}, g, torch::kLong)};
}

torch::Tensor loss_of(ftb::SequenceClassifier& m, const Rows& r, int64_t from, int64_t n, bool bf16) {
  auto ids = r.ids.narrow(0, from, n), labels = r.labels.narrow(0, from, n);
  ftb::AutocastGuard autocast(torch::kCPU, torch::kBFloat16, /*enabled=*/bf16);
  return torch::cross_entropy_loss(m->forward(ids, torch::ones_like(ids)), labels);
}

std::vector<torch::Tensor> snapshot(ftb::SequenceClassifier& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m->parameters()) out.push_back(p.detach().to(torch::kFloat).clone());
  return out;
}

constexpr double kLr = 1e-3;
constexpr int64_t kB = 2;  // rows of a micro-batch on a rank

}  // namespace

// Gathered in bf16, a unit is half its fp32 bytes: zero3's max_gathered_bytes
// (the two neighbouring units alive at once) halves exactly, and each unit's
// parameters are bf16 while the shards the optimizer steps stay fp32. Fails
// on the fp32 gathers (the ratio is 1, the parameters fp32).
TEST_CASE("zero3 in bf16-mixed gathers units in bf16: half the gathered bytes, fp32 shards") {
  struct Out {
    int64_t max_gathered = 0, param_bytes = 0;
    std::vector<int64_t> unit_bytes;
    torch::ScalarType param_dtype = torch::kFloat;
  };
  auto run = [](ftb::Precision precision) {
    Out out;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto comm = ftb_test::join(e, "precision/" + ftb::to_string(precision));
      auto model = make_model();
      ftb::dist::DataParallelOptions o;
      o.sharding = ftb::dist::Sharding::parameters;
      o.lr = kLr;
      ftb::dist::FullyShardedUnits z3(model, comm, o, ftb::dist::unit_precision(precision));
      z3.broadcast_parameters(0);
      const bool bf16 = precision == ftb::Precision::bf16_mixed;
      for (int step = 0; step < 2; ++step) {
        const auto r = rows_of(step, 2 * kB);
        z3.zero_grad();
        loss_of(model, r, e.rank * kB, kB, bf16).backward();
        z3.finish_gradient_sync();
        z3.step();
      }
      if (e.rank == 0) {
        out.max_gathered = z3.max_gathered_bytes();
        out.unit_bytes = z3.unit_bytes();
        out.param_bytes = z3.parameter_bytes();
        out.param_dtype = model->parameters().front().scalar_type();
      }
    });
    return out;
  };
  const auto fp32 = run(ftb::Precision::fp32), bf16 = run(ftb::Precision::bf16_mixed);
  CHECK(ftb::dist::dtype_name(fp32.param_dtype) == "fp32");
  CHECK(ftb::dist::dtype_name(bf16.param_dtype) == "bf16");
  CHECK(bf16.param_bytes == fp32.param_bytes);  // the fp32 master shards
  REQUIRE(bf16.unit_bytes.size() == fp32.unit_bytes.size());
  for (std::size_t u = 0; u < fp32.unit_bytes.size(); ++u) CHECK(2 * bf16.unit_bytes[u] == fp32.unit_bytes[u]);
  CHECK(fp32.max_gathered > 0);
  CHECK(2 * bf16.max_gathered == fp32.max_gathered);
  const auto defaults = ftb::dist::unit_precision(ftb::Precision::bf16_mixed);
  CHECK(ftb::dist::dtype_name(defaults.reduce) == "fp32");  // the stated reduce dtype
  CHECK(ftb::dist::dtype_name(ftb::dist::unit_precision(ftb::Precision::fp16_mixed).gather) == "fp16");
}


namespace {

// One zero3 row (run_data_parallel) on 2 ranks, rank 0's result.
ftb::ScenarioResult zero3_row(const ftb::Workload& w, const ftb::RunConfig& c, bool offload = false,
                              ftb::dist::Sharding sharding = ftb::dist::Sharding::parameters) {
  ftb::ScenarioResult r;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto out = ftb::run_data_parallel(w, c, {}, sharding, e, offload);
    if (e.rank == 0) r = out;
  });
  REQUIRE(r.status == ftb::Status::ok);
  return r;
}

}  // namespace

// A reader's weights under bf16-mixed (review 28, 4): master_parameters()
// are the fp32 masters (FSDP's full state dict), equal to the broadcast fp32
// weights exactly and fp32 after a step, where gather_all(), the only reader
// before, gives bf16-rounded weights (differ by more than 1e-5 here). After
// the destructor the model's parameters are fp32 again: fails on the old
// destructor (they stayed bf16).
TEST_CASE("zero3 in bf16-mixed: master_parameters() are the fp32 masters, the destructor leaves fp32 parameters") {
  std::vector<torch::Tensor> initial, masters, gathered, after_step;
  torch::ScalarType after_destructor = torch::kBFloat16;
  int64_t after_destructor_numel = 0;
  std::mutex mu;
  run_ranks(2, [&](const ftb::DistEnv& e) {
    auto comm = ftb_test::join(e, "precision/masters");
    auto model = make_model();
    const auto fp32_weights = snapshot(model);
    {
      ftb::dist::DataParallelOptions o;
      o.sharding = ftb::dist::Sharding::parameters;
      o.lr = kLr;
      ftb::dist::FullyShardedUnits z3(model, comm, o, ftb::dist::unit_precision(ftb::Precision::bf16_mixed));
      z3.broadcast_parameters(0);
      const auto m = z3.master_parameters();
      z3.gather_all();
      const auto g = snapshot(model);
      z3.zero_grad();
      loss_of(model, rows_of(0, 2 * kB), e.rank * kB, kB, true).backward();
      z3.finish_gradient_sync();
      z3.step();
      const auto stepped = z3.master_parameters();
      z3.gather_all();  // the destructor finds every unit whole (bf16): its parameters become fp32
      std::lock_guard<std::mutex> lock(mu);
      if (e.rank == 0) initial = fp32_weights, masters = m, gathered = g, after_step = stepped;
    }
    std::lock_guard<std::mutex> lock(mu);
    if (e.rank == 0) {
      for (const auto& p : model->parameters()) after_destructor_numel += p.numel();
      after_destructor = model->parameters().front().scalar_type();
    }
  });
  REQUIRE(masters.size() == initial.size());
  for (std::size_t i = 0; i < masters.size(); ++i) {
    CHECK(ftb::dist::dtype_name(masters[i].scalar_type()) == "fp32");
    CHECK(masters[i].sizes() == initial[i].sizes());
    CHECK(ftb::dist::dtype_name(after_step[i].scalar_type()) == "fp32");
  }
  CHECK(max_abs_diff(masters, initial) == 0);
  CHECK(max_abs_diff(gathered, initial) > 1e-5);      // gather_all: the bf16 rounding
  CHECK(max_abs_diff(after_step, initial) > 1e-4);    // the step moved the masters
  CHECK(ftb::dist::dtype_name(after_destructor) == "fp32");
  int64_t numel = 0;
  for (const auto& m : masters) numel += m.numel();
  CHECK(after_destructor_numel == numel);  // the weights kept (units whole), not emptied
}

// The row in bf16-mixed: the held bytes tracked in training and evaluation
// drop from fp32's by what the model says (the whole units gathered at 2
// bytes a parameter instead of 4; the shards, their gradients and Adam's
// state unchanged), and the model's figures follow the dtype. Fails on the
// fp32 gathers: the two precisions then held the same bytes (the old test
// of test_distributed.cpp asserted exactly that).
TEST_CASE("zero3 row in bf16-mixed: held bytes drop as the model says, evaluation exactly") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  const auto w = ftb::build_workload(c);
  c.dp_precision = ftb::Precision::fp32;
  const auto fp32 = zero3_row(w, c);
  c.dp_precision = ftb::Precision::bf16_mixed;
  const auto bf16 = zero3_row(w, c);
  const auto& f = fp32.memory_phases;
  const auto& b = bf16.memory_phases;
  CHECK(bf16.distributed.param_bytes_per_rank == fp32.distributed.param_bytes_per_rank);
  // Evaluation holds every unit whole: fp32 4 bytes a (padded) parameter,
  // bf16 2 plus each unit's send buffer (a chunk: 2 bytes / world size).
  const int64_t padded = bf16.distributed.param_bytes_per_rank / 4 * 2;  // the shards are 1/2 of it, fp32
  CHECK(f.evaluation.modelled_bytes - b.evaluation.modelled_bytes == 4 * padded - (2 * padded + padded));
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    CHECK(b.evaluation.per_rank[rank] == b.evaluation.modelled_bytes);
    CHECK(b.training.per_rank[rank] <= b.training.modelled_bytes);
    CHECK(b.training.per_rank[rank] < f.training.per_rank[rank]);
  }
  // Training: the tracked drop is at least half the modelled one (the
  // model's worst unit and the sampled peak need not be the same instant).
  const int64_t modelled_drop = f.training.modelled_bytes - b.training.modelled_bytes;
  const int64_t tracked_drop = f.training.per_rank[0] - b.training.per_rank[0];
  MESSAGE("zero3, 2 ranks, tiny: training tracked fp32 " << f.training.per_rank[0] << " bf16 "
                                                          << b.training.per_rank[0] << " (modelled "
                                                          << f.training.modelled_bytes << " / "
                                                          << b.training.modelled_bytes << "); evaluation "
                                                          << f.evaluation.per_rank[0] << " / "
                                                          << b.evaluation.per_rank[0]);
  CHECK(modelled_drop > 0);
  CHECK(tracked_drop >= modelled_drop / 2);
  CHECK(bf16.extra.at("device_bytes_needed").get<int64_t>() ==
        std::max(b.training.modelled_bytes, b.evaluation.modelled_bytes));
}

// Every CPU tensor, seen by a counting allocator (tests/counting_allocator.h)
// over the training steps on one rank: under bf16-mixed with fp32 gathers
// the allocator saw the fp32 units and autocast's bf16 casts of their
// weights; gathered in bf16 there are no casts to make and the units are
// half. Fails where the units are gathered in fp32 (the two peaks were equal:
// see test_distributed.cpp's counting-allocator case before this change).
TEST_CASE("zero3 in bf16-mixed: a counting CPU allocator's training peak drops too") {
  using ftb_test::CountingCpuAllocator;
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 1;
  c.batch_size = 2, c.max_length = 8;  // activations small beside the weights
  const auto w = ftb::build_workload(c);
  struct Window : ftb::LoopCallback {
    int64_t start_live = 0, peak = 0;
    bool open = false;
    void on_train_start(const ftb::LoopState&) override {
      auto& a = CountingCpuAllocator::instance();
      start_live = a.live();
      a.reset_peak();
      open = true;
    }
    void on_epoch_steps(const ftb::LoopState&, const std::vector<ftb::StepRecord>&) override {
      if (open) peak = CountingCpuAllocator::instance().peak() - start_live;
      open = false;
    }
  };
  auto run = [&](ftb::Precision precision, int64_t* tracked) {
    c.dp_precision = precision;
    CountingCpuAllocator::Scope scope;
    if (!CountingCpuAllocator::Scope::active()) return int64_t{0};
    Window window;
    ftb::ScenarioContext ctx;
    ctx.callbacks = {&window};
    run_ranks(1, [&](const ftb::DistEnv& e) {
      auto r = ftb::run_data_parallel(w, c, ctx, ftb::dist::Sharding::parameters, e);
      *tracked = r.memory_phases.training.per_rank.at(0);
    });
    return window.peak;
  };
  // The least of three runs: now and then something outside the step (seen:
  // 52,096 bytes once in five) allocates inside the window. Not the
  // loader's prefetch thread (review 28, 6; checked: with prefetch=0 the
  // window's figure drops by 544 bytes, one batch ahead, and an outlier of
  // 17,920 bytes still landed in the first bf16-mixed run, once in four), so
  // the row keeps its default prefetch and the test its least of three.
  int64_t tracked_fp32 = 0, tracked_bf16 = 0;
  const int64_t first = run(ftb::Precision::fp32, &tracked_fp32);
  if (first == 0) FTB_SKIP_CASE("LibTorch did not take the counting CPU allocator (c10::SetCPUAllocator)");
  const int64_t fp32 = std::min({first, run(ftb::Precision::fp32, &tracked_fp32), run(ftb::Precision::fp32, &tracked_fp32)});
  const int64_t bf16 = std::min({run(ftb::Precision::bf16_mixed, &tracked_bf16), run(ftb::Precision::bf16_mixed, &tracked_bf16),
                                 run(ftb::Precision::bf16_mixed, &tracked_bf16)});
  MESSAGE("zero3, 1 rank, counting allocator over training's steps: fp32 " << fp32 << " bytes, bf16-mixed " << bf16
                                                                           << "; tracked " << tracked_fp32 << " / "
                                                                           << tracked_bf16);
  CHECK(bf16 < fp32);
  // The allocator sees at least the drop tracking sees (the units' bytes).
  CHECK(fp32 - bf16 >= tracked_fp32 - tracked_bf16);
}

// Losses over the steps: zero3 in bf16-mixed computes the same bf16 matmuls
// as ddp under autocast (the same fp32 weights rounded to bf16 once, by the
// cast of the shard instead of by autocast), but its embeddings and
// LayerNorms run on bf16 weights where ddp's are fp32: outputs differ by
// bf16 rounding (2^-8 relative) in places, so the losses agree to about
// that, not to fp32's 1e-5: tolerance 5e-3 absolute on a loss near ln 2
// (measured: 2.3e-4 over 6 steps). zero3_offload steps the same fp32 shards
// on the host: equal to zero3's within 1e-6 (measured: 0). Fails where the
// gradients do not reach the fp32 shards: checked by hand with the
// gradients' copy into the staging buffer removed, the losses parted by
// 0.031 within the 6 steps.
TEST_CASE("zero3 in bf16-mixed: losses within 5e-3 of ddp's bf16-mixed, zero3_offload equal to zero3") {
  auto c = amp_tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.max_steps = 6;
  c.lr = 1e-3;
  c.dp_precision = ftb::Precision::bf16_mixed;
  const auto w = ftb::build_workload(c);
  const auto ddp = zero3_row(w, c, false, ftb::dist::Sharding::none);
  const auto z3 = zero3_row(w, c);
  const auto z3_off = zero3_row(w, c, /*offload=*/true);
  REQUIRE(z3.steps.size() == ddp.steps.size());
  REQUIRE(z3_off.steps.size() == z3.steps.size());
  REQUIRE(z3.steps.size() >= 4);
  double worst = 0, worst_offload = 0;
  for (std::size_t i = 0; i < z3.steps.size(); ++i) {
    worst = std::max(worst, std::abs(z3.steps[i].loss - ddp.steps[i].loss));
    worst_offload = std::max(worst_offload, std::abs(z3_off.steps[i].loss - z3.steps[i].loss));
  }
  MESSAGE("bf16-mixed, 2 ranks, " << z3.steps.size() << " steps: |zero3 - ddp| loss at most " << worst
                                  << ", |zero3_offload - zero3| " << worst_offload);
  CHECK(worst < 5e-3);
  CHECK(worst_offload < 1e-6);
  CHECK(z3.distributed.param_bytes_per_rank == z3_off.distributed.param_bytes_per_rank);
}

namespace {

// One step on `world` ranks from K = 3 micro-batches of kB rows each (sync
// off, off, on; each loss divided by K, as accumulate=K does), rank 0's
// parameters after the step; the error of a further backward with sync on.
struct Accumulated {
  std::vector<torch::Tensor> params;
  std::string second_backward_error;
};
constexpr int kMicro = 3;
Accumulated accumulate_step(bool offload, int world = 2) {
  Accumulated out;
  const auto r = rows_of(0, world * kMicro * kB);
  run_ranks(world, [&](const ftb::DistEnv& e) {
    auto comm = ftb_test::join(e, std::string("accumulate/") + (offload ? "offload" : "device"));
    auto model = make_model();
    ftb::dist::DataParallelOptions o;
    o.sharding = ftb::dist::Sharding::parameters;
    o.offload = offload;
    o.lr = kLr;
    ftb::dist::FullyShardedUnits z3(model, comm, o);
    z3.broadcast_parameters(0);
    z3.zero_grad();
    for (int k = 0; k < kMicro; ++k) {
      z3.set_sync(k == kMicro - 1);
      const int64_t from = (e.rank * kMicro + k) * kB;
      (loss_of(model, r, from, kB, false) / kMicro).backward();
    }
    z3.finish_gradient_sync();
    z3.step();
    // A further backward with sync on (the K-th reduced already): refused.
    try {
      loss_of(model, r, 0, kB, false).backward();
    } catch (const std::exception& ex) {
      if (e.rank == 0) out.second_backward_error = ex.what();
    }
    z3.zero_grad();
    z3.gather_all();  // every rank: a collective
    if (e.rank == 0) out.params = snapshot(model);
  });
  return out;
}

// The same step in one process on all world * K * kB rows.
std::vector<torch::Tensor> one_step(int64_t rows) {
  auto model = make_model();
  auto adam = ftb::make_device_adam(model->parameters(), kLr, torch::kCPU);
  const auto r = rows_of(0, rows);
  adam->zero_grad();
  loss_of(model, r, 0, rows, false).backward();
  adam->step();
  return snapshot(model);
}

}  // namespace

// Accumulation (set_sync): 3 micro-batches of B on 2 ranks with sync
// off/off/on, then a step, equal to one step on the 2*3*B batch, for zero3
// and zero3_offload. Fails where sync off is refused (GradientSync's
// default), where a micro-batch's gradients are dropped or reduced more than
// once: checked by hand with the accumulated sum left out of the K-th
// reduce (the last micro-batch's gradients only), parameters off by 0.002.
TEST_CASE("zero3 accumulation: 3 micro-batches with sync off, off, on equal one step on the 6B batch") {
  const auto expected = one_step(2 * kMicro * kB);
  for (bool offload : {false, true}) {
    CAPTURE(offload);
    const auto got = accumulate_step(offload);
    CHECK(max_abs_diff(got.params, expected) < 1e-5);
    // The control: the parameters moved (a step of lr 1e-3 from the start).
    auto start = make_model();
    CHECK(max_abs_diff(got.params, snapshot(start)) > 1e-4);
    // A second backward with sync on stays refused, naming accumulate.
    CHECK(got.second_backward_error.find("accumulate") != std::string::npos);
  }
}


// The rows with accumulate=3 (run_data_parallel drives set_sync): zero3 and
// zero3_offload train as ddp does with accumulate=3 (fp32: losses within
// 1e-5), and zero3's modelled training figure grows by the whole fp32
// gradients it holds meanwhile (4 bytes a padded parameter: world size x
// the shard's bytes), which the tracked peak stays within. Fails where the
// row's set_sync(false) is refused (GradientSync's default), where the
// model leaves the sums out (the tracked peak then exceeds it), or where
// they are not held (the tracked peak would not grow).
TEST_CASE("zero3 rows with accumulate=3 train as ddp's, holding the whole fp32 gradients the model counts") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.batch_size = 4;
  c.max_steps = 3;
  c.dp_precision = ftb::Precision::fp32;
  const auto w1 = ftb::build_workload(c);
  const auto once = zero3_row(w1, c);
  c.accumulate = 3;
  const auto w = ftb::build_workload(c);
  const auto ddp = zero3_row(w, c, false, ftb::dist::Sharding::none);
  const auto z3 = zero3_row(w, c);
  const auto z3_off = zero3_row(w, c, /*offload=*/true);
  REQUIRE(z3.steps.size() == ddp.steps.size());
  REQUIRE(z3_off.steps.size() == ddp.steps.size());
  for (std::size_t i = 0; i < z3.steps.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(z3.steps[i].loss - ddp.steps[i].loss) < 1e-5);
    CHECK(std::abs(z3_off.steps[i].loss - ddp.steps[i].loss) < 1e-5);
  }
  const auto& m = z3.memory_phases;
  const int64_t sums = c.world_size * z3.distributed.param_bytes_per_rank;
  CHECK(m.training.modelled_bytes == once.memory_phases.training.modelled_bytes + sums);
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    CHECK(m.training.per_rank[rank] <= m.training.modelled_bytes);
    CHECK(m.training.per_rank[rank] > once.memory_phases.training.per_rank[rank]);
  }
}


// What ran is recorded: distributed.gather_dtype / reduce_dtype on zero3's
// rows (bf16 / fp32 under bf16-mixed, fp32 / fp32 in fp32), absent on the
// other strategies; they survive the report's JSON, and the memory table's
// strategy cell names them where the units were not gathered in fp32. Fails
// where the row does not record them (empty), the JSON drops them, or the
// table shows a bf16 row as plain zero3.
TEST_CASE("zero3's gather and reduce dtypes are recorded in the report and shown by the memory table") {
  auto c = tiny_config();
  c.dropout = 0;
  c.world_size = 2;
  c.max_steps = 1;
  const auto w = ftb::build_workload(c);
  c.dp_precision = ftb::Precision::bf16_mixed;
  const auto bf16 = zero3_row(w, c);
  const auto ddp = zero3_row(w, c, false, ftb::dist::Sharding::none);
  c.dp_precision = ftb::Precision::fp32;
  const auto fp32 = zero3_row(w, c);
  CHECK(bf16.distributed.gather_dtype == "bf16");
  CHECK(bf16.distributed.reduce_dtype == "fp32");
  CHECK(fp32.distributed.gather_dtype == "fp32");
  CHECK(fp32.distributed.reduce_dtype == "fp32");
  CHECK(ddp.distributed.gather_dtype.empty());
  const auto back = ftb::result_from_json(ftb::to_json(bf16));
  CHECK(back.distributed.gather_dtype == "bf16");
  CHECK(back.distributed.reduce_dtype == "fp32");
  CHECK_FALSE(ftb::to_json(ddp).at("distributed").contains("gather_dtype"));
  ftb::Report report;
  report.results = {bf16, fp32};
  const auto t = ftb::memory_table(report);
  REQUIRE(t);
  REQUIRE(t->rows.size() == 3);
  CHECK(t->rows[1][1] == "zero3 (bf16 gathers, fp32 reduce)");
  CHECK(t->rows[2][1] == "zero3");
}


// A reduce dtype other than fp32 (FSDP's default where reduce_dtype is None:
// param_dtype): the gradients are reduce-scattered in bf16 into a chunk of
// that dtype and copied into the fp32 shard gradient when the reduce is
// waited for. The first step's shard gradients (the same weights and
// batches in both runs) then equal the fp32 reduce's within bf16's rounding
// of the sums (2^-8 relative to the largest: 1e-2 with margin). Fails where
// the bf16 chunk never reaches the shard gradient (zeros) or lands in the
// wrong shard.
TEST_CASE("zero3 with a bf16 reduce dtype lands its sums in the fp32 shard gradients") {
  auto first_grads = [](ftb::dist::UnitPrecision precision) {
    torch::Tensor out;
    run_ranks(2, [&](const ftb::DistEnv& e) {
      auto comm = ftb_test::join(e, "reduce/" + ftb::dist::dtype_name(precision.reduce));
      auto model = make_model();
      ftb::dist::DataParallelOptions o;
      o.sharding = ftb::dist::Sharding::parameters;
      o.lr = kLr;
      ftb::dist::FullyShardedUnits z3(model, comm, o, precision);
      z3.broadcast_parameters(0);
      const auto r = rows_of(0, 2 * kB);
      z3.zero_grad();
      loss_of(model, r, e.rank * kB, kB, true).backward();
      z3.finish_gradient_sync();
      std::vector<torch::Tensor> flat;
      for (const auto& g : z3.local_grads()) flat.push_back(g.reshape({-1}));
      if (e.rank == 1) out = torch::cat(flat).clone();  // rank 1: not the chunk a rank-0 mix-up would give
      z3.step();
    });
    return out;
  };
  const auto fp32_reduce = first_grads({torch::kBFloat16, torch::kFloat});
  const auto bf16_reduce = first_grads({torch::kBFloat16, torch::kBFloat16});
  REQUIRE(fp32_reduce.defined());
  const double scale = fp32_reduce.abs().max().item<double>();
  const double apart = (bf16_reduce - fp32_reduce).abs().max().item<double>();
  MESSAGE("bf16 reduce: shard gradients apart from the fp32 reduce's by " << apart << " (largest " << scale << ")");
  CHECK(scale > 0);
  CHECK(apart <= 1e-2 * scale);
  CHECK(ftb::dist::dtype_name(bf16_reduce.scalar_type()) == "fp32");
}

}  // namespace zero3_precision_test
