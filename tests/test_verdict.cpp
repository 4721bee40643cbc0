// verdict.h: the one rule that turns an interval, the minimum effect and the
// family's test into a verdict and its reason (issue 41), pinned at its edges.
#include "reports/analysis/verdict.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace ftb::stats;

namespace {

const SideNoise kQuiet{0.0001, 20, 19};

// A change of relative `est` with relative interval [lo, hi].
Change change(double est, double lo, double hi) {
  return {std::log1p(est), std::log1p(lo), std::log1p(hi), 0.95, kQuiet, kQuiet};
}

Judgement rule(bool rejected, double mdc = 0, Direction dir = Direction::higher_is_better) {
  return {0.03, rejected, dir, mdc};
}

}  // namespace

TEST_CASE("decide: rejected and exactly at min_effect is a called change (>= is beyond)") {
  const Decision up = decide(change(0.03, 0.02, 0.04), rule(true));
  CHECK(up.verdict == Verdict::better);
  CHECK(up.reason.ruling == Ruling::called);
  const Decision down = decide(change(-0.03, -0.04, -0.02), rule(true));
  CHECK(down.verdict == Verdict::worse);
  // Lower is better (a memory or a time): the same drop is an improvement.
  CHECK(decide(change(-0.03, -0.04, -0.02), rule(true, 0, Direction::lower_is_better)).verdict == Verdict::better);
  CHECK(decide(change(0.05, 0.04, 0.06), rule(true, 0, Direction::lower_is_better)).verdict == Verdict::worse);
}

TEST_CASE("decide: rejected but inside min_effect is same where the interval lies inside, else cannot tell") {
  const Decision same = decide(change(0.01, 0.005, 0.015), rule(true));
  CHECK(same.verdict == Verdict::same);
  CHECK(same.reason.ruling == Ruling::settled);
  const Decision wide = decide(change(0.02, 0.005, 0.035), rule(true));
  CHECK(wide.verdict == Verdict::cannot_tell);
  CHECK(wide.reason.ruling == Ruling::interval_reaches);
}

TEST_CASE("decide: an interval touching +-min_effect does not rule it out") {
  // within_effect is open at the bound: an interval ending exactly at +3 %
  // still includes a +3 % change.
  CHECK(decide(change(0, -0.01, 0.03), rule(false)).verdict == Verdict::cannot_tell);
  CHECK(decide(change(0, -0.03, 0.01), rule(false)).verdict == Verdict::cannot_tell);
  CHECK(decide(change(0, -0.0299, 0.0299), rule(false)).verdict == Verdict::same);
}

TEST_CASE("decide: not rejected but entirely beyond is cannot tell, and says so without contradiction") {
  const Decision d = decide(change(-0.065, -0.095, -0.035), rule(false));
  CHECK(d.verdict == Verdict::cannot_tell);
  CHECK(d.reason.ruling == Ruling::beyond_not_called);
  const std::string text = explain(d.reason);
  CHECK(text.find("lies entirely beyond -3 %") != std::string::npos);
  CHECK(text.find("did not call it") != std::string::npos);
  CHECK(text.find("still includes") == std::string::npos);
  CHECK(d.reason.low == doctest::Approx(-0.095));
  CHECK(d.reason.high == doctest::Approx(-0.035));
}

TEST_CASE("decide: calibrate's minimum detectable change widens same, never narrows it") {
  // +-2.5 % interval: same at 3 %; with a 5 % detectable change still same.
  CHECK(decide(change(0, -0.025, 0.025), rule(false, 0.05)).verdict == Verdict::same);
  // +-4 %: cannot tell at 3 %, same once calibrate says 5 % is all it can see.
  CHECK(decide(change(0, -0.04, 0.04), rule(false)).verdict == Verdict::cannot_tell);
  const Decision widened = decide(change(0, -0.04, 0.04), rule(false, 0.05));
  CHECK(widened.verdict == Verdict::same);
  CHECK(widened.reason.same_within == doctest::Approx(0.05));
  // A detectable change below min_effect leaves min_effect.
  CHECK(decide(change(0, -0.04, 0.04), rule(false, 0.01)).reason.same_within == doctest::Approx(0.03));
  // It does not widen a called change away: rejected and beyond stays called.
  CHECK(decide(change(0.04, 0.035, 0.045), rule(true, 0.05)).verdict == Verdict::better);
}

TEST_CASE("decide: no interval is insufficient") {
  const Decision d = decide(change(0.1, NAN, NAN), rule(true));
  CHECK(d.verdict == Verdict::insufficient);
  CHECK(d.reason.ruling == Ruling::no_noise_estimate);
}
