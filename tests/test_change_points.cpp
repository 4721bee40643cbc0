// reports/analysis/change_points.h: E-divisive means with a Student t-test.
#include <doctest/doctest.h>

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

// The t-test runs on the split that maximises the energy statistic, the best
// of every split: its p (max_p = 0.001) is not the rate at which a flat series
// shows a step. That rate, measured on flat series of Gaussian nights (it does
// not depend on their level or spread: the split and the t-test are both
// location- and scale-free) of the lengths the nightly gate splits (8 and 20
// nights of history, plus tonight), 40,000 seeded series each, is what
// docs/nightly.md and the rule's description state; this pins it within 3
// binomial standard errors (0.11 and 0.17 points).
TEST_CASE("change_points: the rate of false steps on flat series, measured at 8 and 20 nights of history") {
  struct Stated {
    int history_nights;
    double rate;  // docs/nightly.md, describe(NightlyRule)
  };
  const int series = 40000;
  for (const auto& stated : {Stated{8, 0.0057}, Stated{20, 0.0125}}) {
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
