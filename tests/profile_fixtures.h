// A synthetic operator profile shared by the tests that must name a slowed
// operator first (compare, regress): one profiled step of 100 ms plus
// `addmm_ms`, aten::addmm (inside aten::linear, in forward) 40 ms plus
// `addmm_ms` of self time, aten::gelu 7 ms, the optimizer's aten::mul 20 ms.
#pragma once

#include <cstdint>
#include <string>

#include "core/measure/op_profile.h"

namespace ftb::testing {

inline OpProfile addmm_profile(int64_t addmm_ms) {
  auto e = [](const std::string& n, int64_t a, int64_t b, bool range = false) {
    return ProfileEvent{n, 1, a * 1000000, b * 1000000, false, range};
  };
  return summarize_profile({e(profiler_step_name(3), 0, 100 + addmm_ms, true), e("forward", 1, 61 + addmm_ms, true),
                            e("aten::linear", 2, 52 + addmm_ms), e("aten::addmm", 5, 45 + addmm_ms),
                            e("aten::gelu", 53 + addmm_ms, 60 + addmm_ms),
                            e("optimizer", 70 + addmm_ms, 95 + addmm_ms, true), e("aten::mul", 71 + addmm_ms, 91 + addmm_ms)},
                           false);
}

}  // namespace ftb::testing
