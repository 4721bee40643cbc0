// resolution.h: when a verdict that called no change may say "same", and
// what would settle it where it cannot (issue 36).
#include "reports/analysis/resolution.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace ftb::stats;

TEST_CASE("resolve: same only where the interval rules out the minimum effect either way") {
  const SideNoise a{0.0001, 20, 19}, b{0.0001, 20, 19};
  CHECK(resolve(std::log(0.99), std::log(1.01), a, b, 0.02).resolved);
  CHECK_FALSE(resolve(std::log(0.97), std::log(1.01), a, b, 0.02).resolved);  // a -3 % change is still in it
  CHECK_FALSE(resolve(std::log(0.99), std::log(1.03), a, b, 0.02).resolved);
  CHECK_FALSE(resolve(NAN, NAN, a, b, 0.02).resolved);                         // no interval: nothing ruled out
}

TEST_CASE("resolve: issue 36's case, 3 baseline runs against one run tonight at 8.6 % noise") {
  // Tonight's one run is taken as noisy as the baseline (regress): both sides
  // the baseline's variance, its 2 df. The interval of a -50 % change:
  const double var = 0.086 * 0.086;
  const SideNoise base{var, 3, 2}, tonight{var, 1, 2};
  const double se = 0.086 * std::sqrt(1.0 / 3 + 1), q = 4.303;  // t_{0.975, 2}
  const double d = std::log(0.5);
  const Resolution r = resolve(d - q * se, d + q * se, base, tonight, 0.03);
  CHECK_FALSE(r.resolved);
  CHECK(r.half_width == doctest::Approx(q * se).epsilon(0.001));
  // Tonight's one run is most of the interval: the plan adds runs tonight
  // too, until the interval around -50 % would lie wholly beyond -3 %
  // (settling_half_width: the estimate's distance to the nearer bound).
  CHECK(r.reachable);
  CHECK(r.more_b > 0);
  CHECK(r.planned_half_width < settling_half_width(d, 0.03));
  CHECK(d + r.planned_half_width < std::log1p(-0.03));
  CHECK(settle_text(r, "baseline runs", "runs tonight").find("more runs tonight") != std::string::npos);
}

TEST_CASE("resolve: greedy, where further runs narrow the interval most, and honest where none can") {
  // A noisy (8 %, 3 runs), B quiet (1.5 %, 6 runs): the runs go to A.
  const Resolution r = resolve(-0.2, 0.2, {0.08 * 0.08, 3, 2}, {0.015 * 0.015, 6, 5}, 0.02);
  CHECK(r.reachable);
  CHECK(r.more_a > 5 * r.more_b);
  CHECK(settle_text(r, "runs of A", "runs of B").find(" more runs of A") != std::string::npos);
  // Unmeasured noise: nothing to plan from.
  const Resolution none = resolve(-0.2, 0.2, {NAN, 1, 0}, {0.0001, 3, 2}, 0.02);
  CHECK_FALSE(none.reachable);
  CHECK(settle_text(none, "A", "B") == "runs that measure the run-to-run noise");
  // Beyond max_more: said so, not a number of runs that would not do.
  const Resolution far = resolve(-1, 1, {1.0, 3, 2}, {1.0, 3, 2}, 0.02, 0.95, 50);
  CHECK_FALSE(far.reachable);
  CHECK(far.more_a + far.more_b == 50);
  CHECK(settle_text(far, "A", "B").find("more than 50 further runs") == 0);
}

TEST_CASE("settling_half_width: the estimate's distance to the nearer bound of the effect, at least a quarter of it") {
  const double e = std::log1p(0.03);
  CHECK(settling_half_width(0.0, 0.03) == doctest::Approx(e));                    // no change: inside +-3 %
  CHECK(settling_half_width(std::log(1.02), 0.03) == doctest::Approx(e - std::log(1.02)));  // near the upper bound
  CHECK(settling_half_width(std::log(0.5), 0.03) == doctest::Approx(std::log1p(-0.03) - std::log(0.5)));  // far beyond
  CHECK(settling_half_width(std::log(1.03), 0.03) == doctest::Approx(0.25 * e));  // on the bound: a quarter
  CHECK(within_effect(std::log(0.98), std::log(1.02), 0.03));
  CHECK_FALSE(within_effect(std::log(0.96), std::log(1.02), 0.03));
}

TEST_CASE("resolve: an interval already narrow that straddles the effect plans to clear the boundary") {
  // -2.5 % .. -0.5 % at min_effect 2 %: half-width 1 % < 2 %, estimate -1.5 %.
  const Resolution r = resolve(std::log(0.975), std::log(0.995), {0.0001, 10, 9}, {0.0001, 10, 9}, 0.02);
  CHECK_FALSE(r.resolved);
  CHECK(r.reachable);
  CHECK(r.more_a + r.more_b > 0);
  CHECK(r.planned_half_width < r.half_width);
}

TEST_CASE("resolve: an interval wholly beyond the effect that the family level did not call asks for more runs") {
  // -9.5 % .. -3.5 % at min_effect 3 % (3 baseline runs close together, Holm over 4 rows did not reach it).
  const Resolution r = resolve(std::log(0.905), std::log(0.965), {0.00005, 3, 2}, {0.00005, 1, 2}, 0.03);
  CHECK_FALSE(r.resolved);
  CHECK(r.reachable);
  CHECK(r.more_a + r.more_b > 0);
  CHECK(r.planned_half_width < 0.5 * r.half_width);
}
