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

// The row itself against baseline (fp32), both as the suite runs them: the
// same model, batches and Adam, so the losses differ by bf16's rounding only.
TEST_CASE("amp_bf16: the row's step losses stay within 2^-8 of baseline's, step for step, and differ from them") {
  auto config = amp_tiny_config();
  // Dropout off: its masks are drawn on tensors of different dtypes in the
  // two rows, and the test is about rounding, not about the RNG.
  config.dropout = 0;
  const auto workload = ftb::build_workload(config);
  auto steps_of = [&](const char* row) {
    const auto r = ftb::run_scenario(*ftb::find_scenario(row), workload, config, {});
    REQUIRE_MESSAGE(r.status == ftb::Status::ok, r.reason);
    return r.steps;
  };
  const auto fp32 = steps_of("baseline");
  const auto bf16 = steps_of("amp_bf16");
  REQUIRE(fp32.size() == bf16.size());
  REQUIRE(fp32.size() >= 4);
  const double kTolerance = 1.0 / 256;  // 2^-8
  double maxdiff = 0;
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    CAPTURE(i);
    REQUIRE(std::isfinite(fp32[i].loss));
    REQUIRE(std::isfinite(bf16[i].loss));
    maxdiff = std::max(maxdiff, std::abs(fp32[i].loss - bf16[i].loss));
    CHECK(std::abs(fp32[i].loss - bf16[i].loss) <= kTolerance);
  }
  MESSAGE("amp_bf16 vs baseline step loss over " << fp32.size() << " steps: maxdiff " << maxdiff
                                                 << " (baseline's first loss " << fp32[0].loss << ")");
  CHECK(maxdiff > 0);  // the row really ran in bf16
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
