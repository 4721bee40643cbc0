// reports/analysis/change_points.h: E-divisive means with a Welch t-test.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

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

TEST_CASE("change_points: two steps, and none in a flat noisy series (rate over 500 series)") {
  std::vector<double> x;
  for (int i = 0; i < 10; ++i) x.push_back(i % 2 ? 0.01 : -0.01);
  for (int i = 0; i < 10; ++i) x.push_back(0.2 + (i % 2 ? 0.01 : -0.01));
  for (int i = 0; i < 10; ++i) x.push_back(0.05 + (i % 3 ? 0.01 : -0.01));
  const auto cps = change_points(x);
  REQUIRE(cps.size() == 2);
  CHECK(cps[0].index == 10);
  CHECK(cps[1].index == 20);

  std::mt19937_64 rng(9);
  std::normal_distribution<double> z;
  int any = 0;
  for (int t = 0; t < 500; ++t) {
    std::vector<double> flat;
    for (int i = 0; i < 20; ++i) flat.push_back(z(rng));
    any += !change_points(flat).empty();
  }
  CHECK(any <= 25);  // <= 5 % of flat series see a step
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
