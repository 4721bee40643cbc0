// reports/analysis/statistics.h: quantiles, and intervals that state their coverage
// (order statistics for a median; per-round ratios when paired, every pairwise
// ratio with its exact Mann-Whitney coverage when not).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "reports/analysis/statistics.h"

using namespace ftb::stats;

TEST_CASE("quantile interpolates as numpy does") {
  CHECK(quantile({1, 2, 3, 4}, 0.25) == doctest::Approx(1.75));
  CHECK(quantile({4, 1, 3, 2}, 0.5) == doctest::Approx(2.5));
  CHECK(quantile({7}, 0.9) == 7);
  CHECK(std::isnan(quantile({}, 0.5)));
  CHECK(quantile({10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 0.9) == doctest::Approx(91));
}

TEST_CASE("order_statistic_coverage: [min, max] of 2, 3, 5, 6 repeats covers 50, 75, 93.75, 96.9 %") {
  CHECK(order_statistic_coverage(2, 1) == doctest::Approx(0.5));
  CHECK(order_statistic_coverage(3, 1) == doctest::Approx(0.75));
  CHECK(order_statistic_coverage(5, 1) == doctest::Approx(0.9375));
  CHECK(order_statistic_coverage(6, 1) == doctest::Approx(0.96875));
  CHECK(order_statistic_coverage(20, 6) == doctest::Approx(0.9586).epsilon(1e-3));  // x(6)..x(15)
  CHECK(std::isnan(order_statistic_coverage(3, 3)));
}

TEST_CASE("median_interval: never called 95 % below the n that reaches it, narrows with n, none from one value") {
  const auto one = median_interval({3.0});
  CHECK(one.estimate == 3);
  CHECK(one.low == 3);
  CHECK(one.high == 3);
  CHECK(std::isnan(one.coverage));
  CHECK(one.method == IntervalMethod::none);

  const auto three = median_interval({3, 1, 2});
  CHECK(three.low == 1);
  CHECK(three.high == 3);
  CHECK(three.coverage == doctest::Approx(0.75));
  CHECK(three.method == IntervalMethod::order_statistics);

  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(100, 5);
  std::vector<double> few, many;
  for (int i = 0; i < 5; ++i) few.push_back(noise(rng));
  for (int i = 0; i < 200; ++i) many.push_back(noise(rng));
  const auto a = median_interval(few), b = median_interval(many);
  CHECK(a.coverage == doctest::Approx(0.9375));
  CHECK(a.low == a.min);
  CHECK(a.high == a.max);
  CHECK(b.coverage >= 0.95);
  CHECK(b.coverage < 0.97);
  CHECK(b.high - b.low < a.high - a.low);
  CHECK(b.low < 100);
  CHECK(b.high > 100);
}

TEST_CASE("median_interval: the stated coverage is the coverage reached (simulation, skewed data)") {
  // Lognormal repeats: the true median is exp(0) = 1.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  for (int n : {3, 5, 9}) {
    int covered = 0;
    const int trials = 6000;
    double stated = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> x;
      for (int i = 0; i < n; ++i) x.push_back(std::exp(z(rng)));
      const auto i = median_interval(x);
      stated = i.coverage;
      covered += i.low <= 1 && 1 <= i.high;
    }
    INFO("n = " << n << ": covered " << covered << " of " << trials << ", stated " << stated);
    CHECK(covered / double(trials) == doctest::Approx(stated).epsilon(0.02));
  }
}

TEST_CASE("pairwise_ratio_coverage: exact Mann-Whitney coverage of the pairwise-ratio order statistics") {
  CHECK(pairwise_ratio_coverage(3, 3, 1) == doctest::Approx(1 - 2.0 / 20));  // [min, max] of 9 ratios
  CHECK(pairwise_ratio_coverage(1, 4, 1) == doctest::Approx(1 - 2.0 / 5));
  // 5 x 5: P(U = 0, 1, 2, 3) = 1, 1, 2, 3 of C(10, 5) = 252.
  CHECK(pairwise_ratio_coverage(5, 5, 3) == doctest::Approx(1 - 2 * 4.0 / 252));
  CHECK(pairwise_ratio_coverage(5, 5, 4) == doctest::Approx(1 - 2 * 7.0 / 252));
  CHECK(pairwise_ratio_coverage(4, 7, 5) == doctest::Approx(pairwise_ratio_coverage(7, 4, 5)));
  // Large samples: the normal approximation of U (mean nm/2, variance nm(n+m+1)/12) is close.
  const int n = 40, m = 60;
  const double sd = std::sqrt(n * m * (n + m + 1) / 12.0);
  const int k = static_cast<int>(std::round(n * m / 2.0 - 1.959964 * sd));
  CHECK(pairwise_ratio_coverage(n, m, k) == doctest::Approx(0.95).epsilon(0.01));
  CHECK(std::isnan(pairwise_ratio_coverage(3, 3, 6)));  // past the middle
}

TEST_CASE("ratio_interval: pairing cancels a drift both arms share, unpaired uses every pairwise ratio") {
  // Both arms drift upward together over the repeats; b is 2x a throughout.
  std::vector<double> a, b;
  for (int i = 0; i < 8; ++i) {
    const double drift = 1 + 0.1 * i;
    a.push_back(10 * drift);
    b.push_back(20 * drift);
  }
  const auto paired = ratio_interval(b, a, /*paired=*/true);
  const auto unpaired = ratio_interval(b, a, /*paired=*/false);
  CHECK(paired.estimate == doctest::Approx(2));
  CHECK(paired.low == doctest::Approx(2));
  CHECK(paired.high == doctest::Approx(2));
  CHECK(paired.method == IntervalMethod::paired_order_statistics);
  CHECK(paired.coverage >= 0.95);
  CHECK(unpaired.high - unpaired.low > 0.3);
  CHECK(unpaired.low < 2);
  CHECK(unpaired.high > 2);
  CHECK(unpaired.method == IntervalMethod::pairwise_ratios);
  CHECK(unpaired.coverage >= 0.95);
  CHECK(unpaired.coverage < 0.97);
  // 3 x 3: [min, max] of the 9 ratios, 90 % (the product of the medians' intervals claimed 56 %).
  const auto three = ratio_interval({2, 2.2, 1.8}, {1, 1.1, 0.9}, false);
  CHECK(three.low == doctest::Approx(1.8 / 1.1));
  CHECK(three.high == doctest::Approx(2.2 / 0.9));
  CHECK(three.coverage == doctest::Approx(0.90));
  // One value on a side: no interval at all.
  const auto single = ratio_interval({2, 2.1, 1.9}, {1}, false);
  CHECK(single.low == single.high);
  CHECK(std::isnan(single.coverage));
}
