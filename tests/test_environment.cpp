// The machine facts a report carries: datasheet peaks by device name, NVML
// (absent on this kind of machine: it must say so, not crash or guess), and
// the peak setting MFU is measured against.
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

TEST_CASE("peak setting: measured, datasheet or a positive number, anything else names the key") {
  CHECK(ftb::parse_peak("measured").source == ftb::PeakSource::measured);
  CHECK(ftb::parse_peak("datasheet").source == ftb::PeakSource::datasheet);
  const auto given = ftb::parse_peak("989.4");
  CHECK(given.source == ftb::PeakSource::given);
  CHECK(given.tflops == doctest::Approx(989.4));
  for (const char* bad : {"", "fast", "0", "-5", "12x", "nan", "inf"}) {
    CAPTURE(bad);
    try {
      ftb::parse_peak(bad);
      FAIL("accepted");
    } catch (const ftb::InputError& e) {
      CHECK(std::string(e.what()).rfind("peak: ", 0) == 0);
    }
  }
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "peak=datasheet");
  CHECK(c.peak.source == ftb::PeakSource::datasheet);
  CHECK(ftb::to_string(c.peak) == "datasheet");
  ftb::apply_override(c, "peak=989.4");
  CHECK(ftb::to_string(c.peak) == "989.4");  // as given, in the report and the table
  CHECK_THROWS_AS(ftb::apply_override(c, "peak=oops"), ftb::InputError);
}

TEST_CASE("nvml: a missing library is reported with the reason, never guessed") {
  ::setenv("FTB_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const auto facts = ftb::nvml_facts();
  ::unsetenv("FTB_NVML_LIBRARY");
  CHECK(facts.at("available") == false);
  CHECK(facts.at("reason").get<std::string>().find("/nonexistent/libnvidia-ml.so.1") != std::string::npos);
  // A library that is not NVML (no nvmlInit_v2) is not one either.
  ::setenv("FTB_NVML_LIBRARY", "libc.so.6", 1);
  const auto libc = ftb::nvml_facts();
  ::unsetenv("FTB_NVML_LIBRARY");
  CHECK(libc.at("available") == false);
}

TEST_CASE("environment: driver, NVML, build tree state") {
  const auto env = ftb::capture_environment();
  REQUIRE(env.contains("nvml"));
  CHECK(env.at("nvml").contains("available"));
  if (env.at("nvml").at("available") == true) {
    // a machine with an NVIDIA driver: every GPU named, with a UUID
    CHECK(env.at("driver_version").is_string());
    for (const auto& g : env.at("nvml").at("gpus")) {
      CHECK(g.at("name").is_string());
      CHECK(g.at("uuid").get<std::string>().rfind("GPU-", 0) == 0);
      CHECK(g.at("memory_total_bytes").get<double>() > 0);
    }
  } else {
    CHECK(env.at("driver_version").is_null());
  }
  const std::string tree = env.at("git_tree");
  CHECK((tree == "clean" || tree == "dirty" || tree == "unknown"));
}
