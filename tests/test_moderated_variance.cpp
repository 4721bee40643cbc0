// reports/analysis/moderated_variance.h: the empirical-Bayes prior the nightly
// gate moderates each scenario's spread toward, and its outliers.
#include <doctest/doctest.h>

#include <boost/math/special_functions/trigamma.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "reports/analysis/moderated_variance.h"

using namespace ftb::stats;

namespace {

// Sample variances of `d` df for true variances `sigma2`.
std::vector<double> draw(const std::vector<double>& sigma2, double d, std::mt19937_64& rng) {
  std::chi_squared_distribution<double> chi(d);
  std::vector<double> s2;
  for (double v : sigma2) s2.push_back(v * chi(rng) / d);
  return s2;
}

}  // namespace

TEST_CASE("trigamma_inverse inverts trigamma") {
  for (double y : {0.05, 0.5, 1.0, 3.5, 50.0, 2000.0})
    CHECK(trigamma_inverse(boost::math::trigamma(y)) == doctest::Approx(y).epsilon(1e-6));
}

TEST_CASE("variance prior: series alike pool (large d0), series that differ keep their own (small d0)") {
  std::mt19937_64 rng(3);
  std::vector<double> alike_d0, differ_d0;
  for (int t = 0; t < 200; ++t) {
    const auto alike = fit_variance_prior(draw(std::vector<double>(10, 1e-3), 7, rng), std::vector<double>(10, 7), 0.05);
    alike_d0.push_back(alike.d0);
    std::vector<double> apart;
    for (int i = 0; i < 10; ++i) apart.push_back(1e-4 * std::pow(3.0, i % 5));  // 81x from quietest to noisiest
    differ_d0.push_back(fit_variance_prior(draw(apart, 7, rng), std::vector<double>(10, 7), 0.05).d0);
  }
  std::sort(alike_d0.begin(), alike_d0.end());
  std::sort(differ_d0.begin(), differ_d0.end());
  MESSAGE("median d0: alike " << alike_d0[100] << ", differing " << differ_d0[100]);
  CHECK(alike_d0[100] >= 5);                   // a series of 7 df gains at least 5 from the pool
  CHECK(differ_d0[100] <= 2);                  // and next to nothing when the pool is no guide
  CHECK(alike_d0[50] > 3 * differ_d0[150]);    // the quartiles apart
}

TEST_CASE("variance prior: a series with an outlying night is left out of the pool and keeps its own spread") {
  std::mt19937_64 rng(11);
  std::vector<double> sigma2(10, 1e-3);
  sigma2[4] = 0.05;  // one -40 % night among seven: its spread 50x the others'
  const std::vector<double> d(10, 7);
  const auto s2 = draw(sigma2, 7, rng);
  const auto p = fit_variance_prior(s2, d, 0.01);
  REQUIRE(p.outlier.size() == 10);
  CHECK(p.outlier[4]);
  CHECK(p.pooled == 9);
  CHECK(p.s0_squared == doctest::Approx(1e-3).epsilon(0.5));
  const auto own = moderate(p, 4, s2[4], 7);
  CHECK(own.own);
  CHECK(own.var == s2[4]);
  CHECK(own.df == 7);
  const auto pooled = moderate(p, 0, s2[0], 7);
  CHECK_FALSE(pooled.own);
  CHECK(pooled.df > 7);
  CHECK(pooled.df <= 63);  // never more than the pooled series hold
}

TEST_CASE("variance prior: fewer than three series, or none usable, is no prior (each its own)") {
  const auto p = fit_variance_prior({1e-3, 2e-3}, {7, 7}, 0.01);
  CHECK(p.d0 == 0);
  const auto m = moderate(p, 1, 2e-3, 7);
  CHECK(m.var == 2e-3);
  CHECK(m.df == 7);
  CHECK(fit_variance_prior({NAN, 0.0, 1e-3}, {7, 7, 0}, 0.01).pooled == 0);
}
