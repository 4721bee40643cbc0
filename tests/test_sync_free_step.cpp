// The step the CUDA-graph rows capture (scenarios/sync_free_step.h), run
// eagerly on the CPU: it is the eager step, its fp16 loss scaling checks,
// skips and rescales on the device, and the per-length graphs' padding does
// not change what the model computes.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/tiny_config.h"
#include "core/train/optimizer.h"
#include "core/train/train_step.h"
#include "core/train/workload.h"
#include "scenarios/sync_free_step.h"
#include "tests/tensor_checks.h"

namespace {

using ftb_test::max_abs_diff;

ftb::RunConfig without_dropout() {  // eager and captured steps compared draw no masks
  auto c = tiny_config();
  c.dropout = 0;
  return c;
}

struct Fixture {
  ftb::RunConfig config = without_dropout();
  ftb::Workload workload = ftb::build_workload(config);
  std::vector<ftb::Batch> batches;
  Fixture() {
    ftb::BatchLoader loader(workload.train, workload.train_loader_options(config));
    loader.start_epoch(0);
    for (int i = 0; i < 4; ++i) batches.push_back(*loader.next());
  }
};

std::vector<torch::Tensor> params_of(const ftb::SequenceClassifier& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m->parameters()) out.push_back(p.detach().clone());
  return out;
}

torch::Tensor scalar_out() { return torch::zeros({}); }
torch::Tensor count_out() { return torch::zeros({}, torch::kLong); }

}  // namespace

TEST_CASE("sync_free_step: fp32 is the eager step (same Adam, same batches, same weights after)") {
  Fixture f;
  auto eager = f.workload.make_model();
  auto captured = f.workload.make_model();
  REQUIRE(max_abs_diff(params_of(eager), params_of(captured)) == 0);
  const auto cpu = torch::Device(torch::kCPU);
  auto eager_adam = ftb::make_device_adam(eager->parameters(), f.config.lr, cpu);
  auto captured_adam = ftb::make_device_adam(captured->parameters(), f.config.lr, cpu);
  ftb::SyncFreeStep step(captured, *captured_adam, ftb::Precision::fp32);
  auto loss = scalar_out();
  auto correct = count_out();
  for (const auto& b : f.batches) {
    eager_adam->zero_grad();
    auto [eager_loss, eager_correct] = ftb::forward_loss(eager, b);
    eager_loss.backward();
    eager_adam->step();
    step(b, loss, correct);
    CHECK(loss.item<float>() == doctest::Approx(eager_loss.item<float>()).epsilon(1e-6));
    CHECK(correct.item<int64_t>() == eager_correct.sum().item<int64_t>());
  }
  CHECK(max_abs_diff(params_of(eager), params_of(captured)) < 1e-6);
  CHECK(step.skipped_steps() == 0);
  CHECK(step.loss_scale() == 1.0);
}

TEST_CASE("sync_free_step: fp16 unscales the grads on the device before Adam sees them") {
  Fixture f;
  auto fp32_model = f.workload.make_model();
  auto fp16_model = f.workload.make_model();
  const auto cpu = torch::Device(torch::kCPU);
  auto fp32_adam = ftb::make_device_adam(fp32_model->parameters(), f.config.lr, cpu);
  auto fp16_adam = ftb::make_device_adam(fp16_model->parameters(), f.config.lr, cpu);
  ftb::SyncFreeStep fp32_step(fp32_model, *fp32_adam, ftb::Precision::fp32);
  ftb::SyncFreeStep fp16_step(fp16_model, *fp16_adam, ftb::Precision::fp16_mixed);
  auto loss = scalar_out();
  auto correct = count_out();
  fp32_step(f.batches[0], loss, correct);
  const float fp32_loss = loss.item<float>();
  fp16_step(f.batches[0], loss, correct);
  // fp16 rounds each matmul input to 11 bits (u = 2^-11): the loss near
  // initialisation moves by far less than 1e-2, the unscaled grads by a few
  // u of the largest grad. Scaled grads would be 65536x off.
  CHECK(loss.item<float>() == doctest::Approx(fp32_loss).epsilon(1e-2));
  auto p32 = fp32_model->parameters(), p16 = fp16_model->parameters();
  double worst = 0;
  for (std::size_t i = 0; i < p32.size(); ++i) {
    const double scale = p32[i].grad().abs().max().item<double>();
    // + 1e-8: the key bias's grad is 0 in exact math (softmax cancels it),
    // so both runs hold rounding noise there (3e-14 and 2e-10 measured).
    worst = std::max(worst, (p16[i].grad() - p32[i].grad()).abs().max().item<double>() / (scale + 1e-8));
  }
  CHECK(worst < 0.05);  // measured 0.016, from the key bias; scaled grads would read ~65536
  CHECK(fp16_step.skipped_steps() == 0);
  CHECK(fp16_step.loss_scale() == 65536.0);  // one clean step: no growth before 2000
  CHECK(max_abs_diff(params_of(fp16_model), params_of(f.workload.make_model())) > 0);  // it stepped
}

TEST_CASE("sync_free_step: an fp16 overflow skips the step on the device, halves the scale, reset() restores it") {
  Fixture f;
  auto model = f.workload.make_model();
  const auto before = params_of(model);
  auto adam = ftb::make_device_adam(model->parameters(), f.config.lr, torch::Device(torch::kCPU));
  ftb::GradScalerOptions o;
  o.init_scale = std::numeric_limits<float>::max();  // loss * scale overflows to inf
  ftb::SyncFreeStep step(model, *adam, ftb::Precision::fp16_mixed, o);
  auto loss = scalar_out();
  auto correct = count_out();
  step(f.batches[0], loss, correct);
  CHECK(std::isfinite(loss.item<float>()));  // the reported loss is the unscaled one
  CHECK(step.skipped_steps() == 1);
  CHECK(step.loss_scale() == doctest::Approx(o.init_scale * 0.5));
  CHECK(max_abs_diff(params_of(model), before) == 0);  // no Adam step, not even a counted one
  step(f.batches[1], loss, correct);
  CHECK(step.skipped_steps() == 2);
  CHECK(max_abs_diff(params_of(model), before) == 0);
  step.reset();
  CHECK(step.skipped_steps() == 0);
  CHECK(step.loss_scale() == doctest::Approx(o.init_scale));
}

TEST_CASE("sync_free_step: skipped steps do not advance Adam's step counter") {
  // Two runs from the same weights: one whose first k steps overflow, then
  // steps at the scale k backoffs left, and one that starts at that scale. The bias corrections
  // depend on the step count, so equal weights after the same clean steps
  // mean the skips were not counted.
  Fixture f;
  auto a = f.workload.make_model();
  auto b = f.workload.make_model();
  const auto cpu = torch::Device(torch::kCPU);
  auto adam_a = ftb::make_device_adam(a->parameters(), f.config.lr, cpu);
  auto adam_b = ftb::make_device_adam(b->parameters(), f.config.lr, cpu);
  ftb::GradScalerOptions big, fits;
  big.init_scale = std::numeric_limits<float>::max();  // fp16 grads overflow until ~100 halvings
  ftb::SyncFreeStep step_a(a, *adam_a, ftb::Precision::fp16_mixed, big);
  auto loss = scalar_out();
  auto correct = count_out();
  int skipped = 0;
  while (skipped < 200) {
    step_a(f.batches[0], loss, correct);
    if (step_a.skipped_steps() == skipped) break;  // this one stepped
    skipped = static_cast<int>(step_a.skipped_steps());
  }
  REQUIRE(skipped > 0);
  REQUIRE(skipped < 200);
  fits.init_scale = big.init_scale;
  for (int i = 0; i < skipped; ++i) fits.init_scale *= 0.5;
  ftb::SyncFreeStep step_b(b, *adam_b, ftb::Precision::fp16_mixed, fits);
  step_b(f.batches[0], loss, correct);
  CHECK(step_b.skipped_steps() == 0);
  CHECK(max_abs_diff(params_of(a), params_of(b)) == 0);
}

TEST_CASE("graph lengths: one at max_length, or every 64 tokens with bucketing, and a batch takes the smallest that holds it") {
  CHECK(ftb::graph_lengths(512, false) == std::vector<int64_t>{512});
  CHECK(ftb::graph_lengths(512, true) == std::vector<int64_t>{64, 128, 192, 256, 320, 384, 448, 512});
  CHECK(ftb::graph_lengths(100, true) == std::vector<int64_t>{64, 100});
  CHECK(ftb::graph_lengths(64, true) == std::vector<int64_t>{64});
  CHECK(ftb::graph_lengths(10, true) == std::vector<int64_t>{10});
  const auto lengths = ftb::graph_lengths(512, true);
  CHECK(ftb::graph_length_for(lengths, 1) == 64);
  CHECK(ftb::graph_length_for(lengths, 64) == 64);
  CHECK(ftb::graph_length_for(lengths, 65) == 128);
  CHECK(ftb::graph_length_for(lengths, 512) == 512);
  CHECK_THROWS_AS(ftb::graph_length_for(lengths, 513), std::out_of_range);
  CHECK_THROWS_AS(ftb::graph_lengths(0, true), std::invalid_argument);
}

TEST_CASE("load_padded: a batch padded to a captured length gives the same logits, loss and hits") {
  Fixture f;
  auto model = f.workload.make_model();
  model->eval();
  torch::NoGradGuard no_grad;
  const auto& b = f.batches[0];
  const int64_t n = b.input_ids.size(1), total = n + 37;
  auto ids = torch::full({b.input_ids.size(0), total}, 7, torch::kLong);  // stale tokens from a previous batch
  auto mask = torch::ones({b.input_ids.size(0), total}, torch::kLong);
  auto labels = torch::zeros({b.input_ids.size(0)}, torch::kLong);
  const int32_t pad = f.workload.eval_loader_options(f.config).pad_id;
  ftb::load_padded(b, ids, mask, labels, pad);
  CHECK(ids.narrow(1, 0, n).equal(b.input_ids));
  CHECK(ids.narrow(1, n, 37).eq(pad).all().item<bool>());
  CHECK(mask.narrow(1, n, 37).eq(0).all().item<bool>());
  CHECK(labels.equal(b.labels));
  const auto plain = model->forward(b.input_ids, b.attention_mask);
  const auto padded = model->forward(ids, mask);
  CHECK((plain - padded).abs().max().item<double>() < 1e-5);
  auto [loss_a, hits_a] = ftb::forward_loss(model, b);
  auto [loss_b, hits_b] = ftb::forward_loss(model, ftb::Batch{ids, mask, labels, 0});
  CHECK(loss_a.item<float>() == doctest::Approx(loss_b.item<float>()).epsilon(1e-5));
  CHECK(torch::equal(hits_a, hits_b));  // per example
  // A batch longer than the buffers is refused, not truncated.
  auto short_ids = torch::zeros({b.input_ids.size(0), n - 1}, torch::kLong);
  auto short_mask = torch::zeros_like(short_ids);
  CHECK_THROWS_AS(ftb::load_padded(b, short_ids, short_mask, labels, pad), std::invalid_argument);
}
