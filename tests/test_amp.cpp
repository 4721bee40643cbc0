// The mixed-precision rows (scenarios/amp.cpp, amp_bf16.cpp): bf16 training
// against fp32 on the same batches, fp16's skip without CUDA.
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
#include "tests/skip.h"

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
  if (ftb::cuda_available()) FTB_SKIP_CASE("a CUDA device is visible: the amp row runs for real (registry smoke test)");
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
