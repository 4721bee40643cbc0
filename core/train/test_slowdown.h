// A test-only knob: FTB_TEST_SLOWDOWN=0.05 makes every training step spin
// on its own thread for 5 % of that step's time more, inside the timed step:
// a real slowdown of a known size, what the nightly gate's detection is
// measured on (docs/nightly.md, the duet's proof). The report records it
// (environment.env_vars). On a CPU the step's time is its work; on a GPU
// the host's launch time, so there it slows the host only.
#pragma once

#include <chrono>

namespace ftb {

// The knob's share (0 when unset); InputError naming the variable when it
// is not a number in [0, 1].
double test_slowdown();

// Spins for test_slowdown() x the time since `step_start`.
void apply_test_slowdown(std::chrono::steady_clock::time_point step_start);

}  // namespace ftb
