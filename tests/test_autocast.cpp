// Autocast from C++ (core/train/autocast.h): the guard's state, CPU bf16.
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
