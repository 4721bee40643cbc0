#include "core/train/test_slowdown.h"

#include <cstdlib>
#include <string>

#include "core/base/errors.h"

namespace ftb {

double test_slowdown() {
  static const double share = [] {
    const char* v = std::getenv("FTB_TEST_SLOWDOWN");
    if (v == nullptr || *v == '\0') return 0.0;
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= 0 && x <= 1))
      input_error("FTB_TEST_SLOWDOWN", "'" + std::string(v) + "' is not a share in [0, 1] (0.05: 5 % more a step)");
    return x;
  }();
  return share;
}

void apply_test_slowdown(std::chrono::steady_clock::time_point step_start) {
  const double share = test_slowdown();
  if (share == 0) return;
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>((Clock::now() - step_start) * share);
  volatile unsigned sink = 0;
  while (Clock::now() < until) sink = sink + 1;  // work on the step's own thread, as a slower kernel would be
}

}  // namespace ftb
