// NVML facts (core/measure/nvml.h): absent on this kind of machine, it must
// say so, not crash or guess.
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/base/errors.h"
#include "core/measure/datasheet_peaks.h"
#include "core/measure/environment.h"
#include "core/measure/nvml.h"
#include "core/train/run_config.h"

using ftb::Precision;

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
