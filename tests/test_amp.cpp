// Mixed precision: the GradScaler (native ATen kernels and the composite
// fallback used where they are missing), the AutocastGuard, and bf16 training
// against fp32 on the same batches.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/tiny_config.h"
#include "core/train/autocast.h"
#include "core/measure/device.h"
#include "core/train/grad_scaler.h"
#include "core/train/run_config.h"
#include "core/train/train_step.h"
#include "core/train/workload.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"

namespace {

std::vector<torch::Tensor> clone_all(const std::vector<torch::Tensor>& ts) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back(t.detach().clone());
  return out;
}

double max_abs_diff(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, (a[i] - b[i]).abs().max().item<double>());
  return m;
}

std::vector<torch::Tensor> grads_of(const torch::nn::Module& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m.parameters()) out.push_back(p.grad().clone());
  return out;
}

// A tiny regression problem: enough for the scaler, whose logic does not
// depend on the model.
struct Toy {
  torch::nn::Linear lin{nullptr};
  torch::Tensor x;
  Toy() {
    torch::manual_seed(0);
    lin = torch::nn::Linear(16, 8);
    x = torch::randn({5, 16});
  }
  torch::Tensor loss() { return lin->forward(x).pow(2).mean(); }
};

ftb::GradScalerOptions scaler_options(bool composite) {
  ftb::GradScalerOptions o;
  o.force_composite = composite;
  return o;
}

// The shared tiny run, two layers wide enough that bf16 rounding shows.
ftb::RunConfig amp_tiny_config() {
  auto c = tiny_config();
  c.dim = 64, c.n_layers = 2, c.hidden_dim = 128;
  return c;
}

}  // namespace

TEST_CASE("scaler: an inf/NaN gradient skips the step and halves the scale") {
  for (bool composite : {false, true}) {
    CAPTURE(composite);
    Toy toy;
    torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.1));
    ftb::GradScaler scaler(scaler_options(composite));
    CHECK(scaler.scale_value() == 65536.0);

    opt.zero_grad();
    scaler.scale(toy.loss()).backward();
    toy.lin->weight.mutable_grad().index_put_({0, 0}, std::numeric_limits<float>::infinity());
    const auto before = clone_all(toy.lin->parameters());
    CHECK_FALSE(scaler.step(opt));
    scaler.update();
    CHECK(max_abs_diff(before, toy.lin->parameters()) == 0);  // unchanged
    CHECK(scaler.skipped_steps() == 1);
    CHECK(scaler.scale_value() == 32768.0);
    CHECK(scaler.growth_tracker() == 0);

    // NaN counts too; then a clean step steps and does not move the scale.
    opt.zero_grad();
    scaler.scale(toy.loss()).backward();
    toy.lin->bias.mutable_grad().index_put_({3}, std::numeric_limits<float>::quiet_NaN());
    CHECK_FALSE(scaler.step(opt));
    scaler.update();
    CHECK(scaler.skipped_steps() == 2);
    CHECK(scaler.scale_value() == 16384.0);

    opt.zero_grad();
    scaler.scale(toy.loss()).backward();
    CHECK(scaler.step(opt));
    scaler.update();
    CHECK(max_abs_diff(before, toy.lin->parameters()) > 0);
    CHECK(scaler.skipped_steps() == 2);
    CHECK(scaler.scale_value() == 16384.0);
    CHECK(scaler.growth_tracker() == 1);
  }
}

TEST_CASE("scaler: the scale grows x2 after growth_interval clean steps") {
  for (bool composite : {false, true}) {
    CAPTURE(composite);
    Toy toy;
    torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.01));
    auto o = scaler_options(composite);
    o.init_scale = 1024;
    o.growth_interval = 3;
    ftb::GradScaler scaler(o);
    auto clean_step = [&] {
      opt.zero_grad();
      scaler.scale(toy.loss()).backward();
      CHECK(scaler.step(opt));
      scaler.update();
    };
    clean_step();
    clean_step();
    CHECK(scaler.scale_value() == 1024.0);
    CHECK(scaler.growth_tracker() == 2);
    clean_step();
    CHECK(scaler.scale_value() == 2048.0);
    CHECK(scaler.growth_tracker() == 0);
    for (int i = 0; i < 3; ++i) clean_step();
    CHECK(scaler.scale_value() == 4096.0);
    CHECK(scaler.skipped_steps() == 0);
  }
}

TEST_CASE("scaler: a grown scale that would overflow fp32 is not taken") {
  for (bool composite : {false, true}) {
    CAPTURE(composite);
    Toy toy;
    torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.0));
    auto o = scaler_options(composite);
    o.init_scale = std::pow(2.0, 127);  // x2 = inf in fp32
    o.growth_interval = 1;
    ftb::GradScaler scaler(o);
    opt.zero_grad();
    // A small loss so that loss * 2^127 stays finite.
    scaler.scale(toy.loss() * 1e-30).backward();
    scaler.step(opt);
    scaler.update();
    CHECK(scaler.scale_value() == std::pow(2.0, 127));
    CHECK(scaler.growth_tracker() == 0);  // reset either way, as the kernel does
  }
}

TEST_CASE("scaler: unscaled gradients equal the gradients of an unscaled run") {
  for (bool composite : {false, true}) {
    CAPTURE(composite);
    Toy toy;
    torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.1));
    opt.zero_grad();
    toy.loss().backward();
    const auto reference = grads_of(*toy.lin);

    ftb::GradScaler scaler(scaler_options(composite));
    opt.zero_grad();
    auto scaled = scaler.scale(toy.loss());
    scaled.backward();
    CHECK(max_abs_diff(grads_of(*toy.lin), reference) > 1.0);  // really scaled
    scaler.unscale_(opt);
    // The scale is a power of two, so scaling commutes with every rounding:
    // the grads come back bit-identical (no over/underflow at this size).
    const double maxdiff = max_abs_diff(grads_of(*toy.lin), reference);
    MESSAGE("maxdiff unscaled vs reference grads: " << maxdiff);
    CHECK(maxdiff == 0);
    CHECK_THROWS_AS(scaler.unscale_(opt), std::logic_error);  // once per step
    CHECK(scaler.step(opt));  // does not unscale a second time
    scaler.update();
  }
}

TEST_CASE("scaler: check_inf_ (the fused-optimizer hook) detects without unscaling") {
  Toy toy;
  torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.1));
  ftb::GradScaler scaler;
  opt.zero_grad();
  scaler.scale(toy.loss()).backward();
  const auto scaled = grads_of(*toy.lin);
  CHECK(scaler.check_inf_(opt).item<float>() == 0.0f);
  CHECK(max_abs_diff(grads_of(*toy.lin), scaled) == 0);  // grads left scaled
  scaler.update();
  CHECK(scaler.growth_tracker() == 1);

  opt.zero_grad();
  scaler.scale(toy.loss()).backward();
  toy.lin->weight.mutable_grad().index_put_({1, 1}, std::numeric_limits<float>::infinity());
  CHECK(scaler.check_inf_(opt).item<float>() > 0.0f);
  CHECK(scaler.found_inf(opt).defined());
  scaler.update();
  CHECK(scaler.scale_value() == 32768.0);
}

TEST_CASE("scaler: disabled is the identity") {
  Toy toy;
  torch::optim::SGD opt(toy.lin->parameters(), torch::optim::SGDOptions(0.1));
  ftb::GradScalerOptions o;
  o.enabled = false;
  ftb::GradScaler scaler(o);
  auto loss = toy.loss();
  CHECK(scaler.scale(loss).equal(loss));
  loss.backward();
  CHECK(scaler.step(opt));
  scaler.update();
  CHECK(scaler.scale_value() == 65536.0);
}

// (Checks on ScalarType are wrapped in parentheses: doctest cannot print it.)
TEST_CASE("autocast: the guard restores the enabled flag, dtype and cache flag, nested") {
  using ftb::AutocastGuard;
  namespace compat = ftb::compat;
  const auto cpu = c10::DeviceType::CPU;
  const auto cuda = c10::DeviceType::CUDA;  // only thread-local state: harmless without a GPU
  const bool cpu_on = compat::autocast_enabled(cpu);
  const auto cpu_dtype = compat::autocast_dtype(cpu);
  const auto cuda_dtype = compat::autocast_dtype(cuda);
  const bool cache = at::autocast::is_autocast_cache_enabled();
  REQUIRE_FALSE(cpu_on);
  {
    AutocastGuard outer(cpu, torch::kBFloat16);
    CHECK(compat::autocast_enabled(cpu));
    CHECK((compat::autocast_dtype(cpu) == torch::kBFloat16));
    {
      AutocastGuard off(cpu, torch::kBFloat16, /*enabled=*/false, /*cache_enabled=*/false);
      CHECK_FALSE(compat::autocast_enabled(cpu));
      CHECK_FALSE(at::autocast::is_autocast_cache_enabled());
    }
    CHECK(compat::autocast_enabled(cpu));
    CHECK(at::autocast::is_autocast_cache_enabled() == cache);
    {
      AutocastGuard a(cuda, torch::kBFloat16);
      CHECK((compat::autocast_dtype(cuda) == torch::kBFloat16));
      {
        AutocastGuard b(cuda, torch::kHalf);
        CHECK((compat::autocast_dtype(cuda) == torch::kHalf));
      }
      CHECK((compat::autocast_dtype(cuda) == torch::kBFloat16));
      CHECK(compat::autocast_enabled(cuda));
    }
    CHECK((compat::autocast_dtype(cuda) == cuda_dtype));
    CHECK_FALSE(compat::autocast_enabled(cuda));
  }
  CHECK(compat::autocast_enabled(cpu) == cpu_on);
  CHECK((compat::autocast_dtype(cpu) == cpu_dtype));
  CHECK(at::autocast::is_autocast_cache_enabled() == cache);
  // Nesting is balanced: the next guard would be the outermost again.
  CHECK(at::autocast::increment_nesting() == 1);
  CHECK(at::autocast::decrement_nesting() == 0);
}

TEST_CASE("autocast: CPU bf16 autocast runs linear in bf16, the model's loss stays fp32") {
  torch::manual_seed(0);
  auto x = torch::randn({4, 8});
  auto w = torch::randn({3, 8});
  {
    ftb::AutocastGuard autocast(c10::DeviceType::CPU, torch::kBFloat16);
    CHECK((torch::nn::functional::linear(x, w).scalar_type() == torch::kBFloat16));
    CHECK((torch::matmul(x, w.t()).scalar_type() == torch::kBFloat16));
  }
  CHECK((torch::nn::functional::linear(x, w).scalar_type() == torch::kFloat));

  const auto config = amp_tiny_config();
  const auto workload = ftb::build_workload(config);
  auto model = workload.make_model();
  ftb::BatchLoader loader(workload.train, workload.train_loader_options(config));
  loader.start_epoch(0);
  auto batch = *loader.next();
  torch::Tensor loss, correct;
  {
    ftb::AutocastGuard autocast(c10::DeviceType::CPU, torch::kBFloat16);
    std::tie(loss, correct) = ftb::forward_loss(model, batch);
  }
  CHECK((loss.scalar_type() == torch::kFloat));
  loss.backward();
  for (const auto& p : model->parameters()) CHECK((p.grad().scalar_type() == torch::kFloat));
}

// Tolerance: one bf16 unit roundoff, u = 2^-8 = 0.0039, absolute on the loss.
// Autocast rounds the inputs of every matmul to bf16 (relative error <= u per
// operand) and accumulates in fp32; the 2-class cross-entropy moves by at most
// 2 max|dlogit| (its gradient in the logits is bounded by 1), and at this
// initialisation the logits are small (first loss 0.698, ln 2 = 0.693), so
// their error stays well below u. (Trained logits of a few units would carry
// errors of a few u: the bound is for this regime, near initialisation.)
// Five Adam steps at lr 5e-5 move each weight by <= 2.5e-4 in both runs alike
// (Adam's early update is ~lr*sign(g)), so divergence adds little. Dropout is
// off (eval mode).
// Measured on CPU, LibTorch 2.11: maxdiff 6.2e-5.
TEST_CASE("amp_bf16: the bf16 loss stays within 2^-8 of fp32 over 5 steps on the same batches") {
  const auto config = amp_tiny_config();
  const auto workload = ftb::build_workload(config);
  ftb::BatchLoader loader(workload.train, workload.train_loader_options(config));
  loader.start_epoch(0);
  std::vector<ftb::Batch> batches;
  for (int i = 0; i < 5; ++i) batches.push_back(*loader.next());

  auto train = [&](bool bf16) {
    auto model = workload.make_model();
    // Dropout off: its masks are drawn on tensors of different dtypes in the
    // two runs, and the test is about rounding, not about the RNG.
    model->eval();
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(config.lr));
    std::vector<double> losses;
    for (const auto& b : batches) {
      opt.zero_grad();
      torch::Tensor loss, correct;
      {
        ftb::AutocastGuard autocast(c10::DeviceType::CPU, torch::kBFloat16, /*enabled=*/bf16);
        std::tie(loss, correct) = ftb::forward_loss(model, b);
      }
      loss.backward();
      opt.step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  };
  const double kTolerance = 1.0 / 256;  // 2^-8
  const auto fp32 = train(false);
  const auto bf16 = train(true);
  double maxdiff = 0;
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    CAPTURE(i);
    maxdiff = std::max(maxdiff, std::abs(fp32[i] - bf16[i]));
    CHECK(std::abs(fp32[i] - bf16[i]) <= kTolerance);
  }
  MESSAGE("bf16 vs fp32 loss over 5 steps: maxdiff " << maxdiff << " (fp32 first loss " << fp32[0] << ")");
  CHECK(maxdiff > 0);  // autocast really ran in bf16
}

TEST_CASE("amp: on a machine without CUDA the fp16 row is skipped and points to amp_bf16") {
  if (ftb::cuda_available()) return;  // runs for real there (registry smoke test)
  auto config = amp_tiny_config();
  const auto* info = ftb::find_scenario("amp");
  REQUIRE(info != nullptr);
  const auto why = info->unavailable(config);
  CHECK(why.find("CUDA") != std::string::npos);
  CHECK(why.find("amp_bf16") != std::string::npos);
  config.device = "auto";
  CHECK_FALSE(info->unavailable(config).empty());
}

TEST_CASE("amp_bf16: the scenario runs on CPU and reports bf16-mixed") {
  const auto config = amp_tiny_config();
  const auto workload = ftb::build_workload(config);
  auto r = ftb::run_scenario(*ftb::find_scenario("amp_bf16"), workload, config, {});
  REQUIRE_MESSAGE(r.status == ftb::Status::ok, r.reason);
  CHECK(r.precision == ftb::Precision::bf16_mixed);
  CHECK(r.skipped_steps == 0);
  CHECK(r.steps.size() == 4);
}
