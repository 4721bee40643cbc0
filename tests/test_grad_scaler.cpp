// The GradScaler (core/train/grad_scaler.h): native ATen kernels and the
// composite that runs elsewhere, skip and back-off, growth, unscaling.
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
#include "tests/tensor_checks.h"

namespace {

using ftb_test::max_abs_diff;


std::vector<torch::Tensor> clone_all(const std::vector<torch::Tensor>& ts) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back(t.detach().clone());
  return out;
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
