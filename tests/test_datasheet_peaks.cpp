// Datasheet peaks (core/measure/datasheet_peaks.h) by device name as drivers report them.
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/base/errors.h"
#include "core/measure/datasheet_peaks.h"
#include "core/measure/environment.h"
#include "core/measure/nvml.h"
#include "core/train/run_config.h"

using ftb::Precision;

TEST_CASE("datasheet peaks: device names as drivers report them, most specific entry first") {
  auto bf16 = [](const char* name) {
    auto d = ftb::datasheet_peaks(name);
    REQUIRE_MESSAGE(d, name);
    return *ftb::datasheet_peak(*d, Precision::bf16_mixed);
  };
  CHECK(bf16("NVIDIA H200") == doctest::Approx(989.4));
  CHECK(bf16("NVIDIA H200 NVL") == doctest::Approx(835));
  CHECK(bf16("NVIDIA H100 80GB HBM3") == doctest::Approx(989.4));
  CHECK(bf16("NVIDIA H100 PCIe") == doctest::Approx(756));
  CHECK(bf16("NVIDIA H100 NVL") == doctest::Approx(835));
  CHECK(bf16("NVIDIA A100-SXM4-80GB") == doctest::Approx(312));
  CHECK(bf16("NVIDIA A100 80GB PCIe") == doctest::Approx(312));
  CHECK(bf16("NVIDIA L4") == doctest::Approx(121));
  CHECK(bf16("NVIDIA L40S") == doctest::Approx(362.05));
  CHECK(bf16("NVIDIA B200") == doctest::Approx(2250));
  CHECK(bf16("NVIDIA GB200") == doctest::Approx(2500));
  CHECK(ftb::datasheet_peaks("NVIDIA GH200 480GB")->model.rfind("GH200", 0) == 0);
  // fp32 rows run with TF32 off: the non-tensor FP32 figure
  CHECK(*ftb::datasheet_peak(*ftb::datasheet_peaks("NVIDIA A100-SXM4-40GB"), Precision::fp32) == doctest::Approx(19.5));
  // where datasheets disagree, no figure rather than a guess
  CHECK_FALSE(ftb::datasheet_peak(*ftb::datasheet_peaks("NVIDIA B200"), Precision::fp32));
  // unknown devices get none
  CHECK_FALSE(ftb::datasheet_peaks("NVIDIA GeForce RTX 4090"));
  CHECK_FALSE(ftb::datasheet_peaks("NVIDIA L40"));  // not the L40S, not the L4
  CHECK_FALSE(ftb::datasheet_peaks(""));
}
