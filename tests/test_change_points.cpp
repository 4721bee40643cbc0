// reports/analysis/change_points.h: E-divisive means with a Student t-test,
// Otava's relaxed first pass and merge, and levels that leave and come back.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "reports/analysis/change_points.h"

using namespace ftb::stats;

TEST_CASE("change_points: one clear step is found where it is, with its levels") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  std::vector<double> x;
  for (int i = 0; i < 12; ++i) x.push_back(0.02 * z(rng));
  for (int i = 0; i < 8; ++i) x.push_back(-0.15 + 0.02 * z(rng));
  const auto cps = change_points(x);
  REQUIRE(cps.size() == 1);
  CHECK(cps[0].index == 12);
  CHECK(cps[0].before == doctest::Approx(0).epsilon(0.02));
  CHECK(cps[0].after - cps[0].before == doctest::Approx(-0.15).epsilon(0.15));
  CHECK(cps[0].p < 0.001);
}

TEST_CASE("change_points: two steps are found where they are") {
  std::vector<double> x;
  for (int i = 0; i < 10; ++i) x.push_back(i % 2 ? 0.01 : -0.01);
  for (int i = 0; i < 10; ++i) x.push_back(0.2 + (i % 2 ? 0.01 : -0.01));
  for (int i = 0; i < 10; ++i) x.push_back(0.05 + (i % 3 ? 0.01 : -0.01));
  const auto cps = change_points(x);
  REQUIRE(cps.size() == 2);
  CHECK(cps[0].index == 10);
  CHECK(cps[1].index == 20);
}

// The t-test runs on the splits that maximise the energy statistic, the best
// of every split and interval: its p (max_p = 0.001) is not the rate at which
// a flat series shows a step. That rate, measured on flat series of Gaussian nights (it does
// not depend on their level or spread: the split and the t-test are both
// location- and scale-free) of the lengths the nightly gate splits (8 and 20
// nights of history, plus tonight), 40,000 seeded series each, is what
// docs/statistics.md and the rule's description state, for the default settings
// (ChangePointOptions::defaults(); other settings are not measured and the
// description says so); this pins it within 3 binomial standard errors (0.11
// and 0.18 points). Before levels that leave and come back were proposed
// (binary segmentation alone, at max_p): 0.57 % and 1.25 %.
TEST_CASE("change_points: the rate of false steps on flat series, measured at 8 and 20 nights of history") {
  struct Stated {
    int history_nights;
    double rate;  // docs/statistics.md, describe(NightlyRule)
  };
  const int series = 40000;
  for (const auto& stated : {Stated{8, 0.0059}, Stated{20, 0.0148}}) {
    std::mt19937_64 rng(2026 + static_cast<unsigned>(stated.history_nights));
    std::normal_distribution<double> z;
    int stepped = 0;
    for (int k = 0; k < series; ++k) {
      std::vector<double> flat(static_cast<size_t>(stated.history_nights + 1));
      for (auto& v : flat) v = z(rng);
      stepped += !change_points(flat).empty();
    }
    const double rate = static_cast<double>(stepped) / series;
    const double se = std::sqrt(stated.rate * (1 - stated.rate) / series);
    MESSAGE(stated.history_nights << " nights of history + tonight: " << stepped << " of " << series
                                  << " flat series show a step (" << 100 * rate << " %, stated "
                                  << 100 * stated.rate << " %)");
    CHECK(std::abs(rate - stated.rate) <= 3 * se);
  }
}

TEST_CASE("change_points: a last segment needs min_segment values, NaN gives none") {
  std::vector<double> x(10, 0.0);
  for (int i = 0; i < 10; ++i) x[i] = (i % 2 ? 0.01 : -0.01);
  x.push_back(-0.5);  // one low value at the end: not a level yet
  CHECK(change_points(x).empty());
  x.push_back(-0.5 + 0.01);
  const auto cps = change_points(x);
  REQUIRE(cps.size() == 1);
  CHECK(cps[0].index == 10);
  CHECK(change_points({1, NAN, 2, 3}).empty());
  CHECK(student_p({1, 2}, {1, 2}) == doctest::Approx(1));
}

// Issue 36: binary segmentation missed levels that leave and come back (9 of
// the 40 two-step series of the Otava cross-check): no single split of the
// whole series separates a level of a few nights in its middle, since either
// side holds both levels. Series as tests/otava_check.py draws them: 12 to
// 30 nights, each night's level its own luck (1 %) plus the median of 3
// repeats (1 % each), a level 8 to 20 % up or down for 3 to 5 nights, at
// least 4 nights before and after. Caught: exactly the two true changes.
// Measured (seed 36): 40 of 40 (binary segmentation alone, at 0.001: 0 of 40;
// the relaxed first pass and merge without proposing the excursion as one:
// 15 of 40).
TEST_CASE("change_points: a level that leaves for 3 to 5 nights and comes back is caught in >= 36 of 40 series") {
  std::mt19937_64 rng(36);
  std::uniform_real_distribution<double> u;
  std::normal_distribution<double> z;
  int caught = 0, without_excursions = 0;
  ChangePointOptions plain;
  plain.excursions = false;
  for (int k = 0; k < 40; ++k) {
    const int nights = 12 + static_cast<int>(u(rng) * 19);
    const int length = 3 + static_cast<int>(u(rng) * 3);
    const int t1 = 4 + static_cast<int>(u(rng) * (nights - length - 8 + 1)), t2 = t1 + length;
    const double step = (u(rng) < 0.5 ? -1 : 1) * (0.08 + 0.12 * u(rng));
    std::vector<double> x;
    for (int i = 0; i < nights; ++i) {
      std::vector<double> repeats = {0.01 * z(rng), 0.01 * z(rng), 0.01 * z(rng)};
      std::sort(repeats.begin(), repeats.end());
      x.push_back((i >= t1 && i < t2 ? std::log1p(step) : 0) + 0.01 * z(rng) + repeats[1]);
    }
    auto exact = [&](const std::vector<ChangePoint>& c) { return c.size() == 2 && c[0].index == t1 && c[1].index == t2; };
    caught += exact(change_points(x));
    without_excursions += exact(change_points(x, plain));
  }
  MESSAGE("caught " << caught << " of 40 (without proposing excursions: " << without_excursions << ")");
  CHECK(caught >= 36);
}

TEST_CASE("change_points: Otava's merge drops a weak candidate and re-tests its neighbours") {
  // A clear step at 10, and a wobble at 5 that a relaxed first pass may
  // propose but that does not hold against its neighbouring segments.
  std::vector<double> x;
  for (int i = 0; i < 10; ++i) x.push_back((i % 2 ? 0.01 : -0.01) + (i >= 5 ? 0.008 : 0));
  for (int i = 0; i < 10; ++i) x.push_back(0.2 + (i % 2 ? 0.01 : -0.01));
  const auto cps = change_points(x);
  REQUIRE(cps.size() == 1);
  CHECK(cps[0].index == 10);
  CHECK(cps[0].p < 0.001);
  CHECK(ChangePointOptions{}.defaults());
  ChangePointOptions o;
  o.max_p = 0.01;
  CHECK_FALSE(o.defaults());
}
