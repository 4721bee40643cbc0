// reports/analysis/two_level.h: the two levels of noise, the t distribution,
// the comparison of runs and Holm's procedure.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "reports/analysis/two_level.h"

using namespace ftb::stats;

TEST_CASE("t distribution: known quantiles, the normal at infinite df") {
  CHECK(t_quantile(0.975, 1) == doctest::Approx(12.7062).epsilon(1e-4));
  CHECK(t_quantile(0.975, 7) == doctest::Approx(2.3646).epsilon(1e-4));
  CHECK(t_quantile(0.975, INFINITY) == doctest::Approx(1.95996).epsilon(1e-5));
  CHECK(t_cdf(0, 3) == doctest::Approx(0.5));
  CHECK(t_cdf(t_quantile(0.01, 5), 5) == doctest::Approx(0.01));
}

TEST_CASE("median_variance_factor: 1 for two values, the known small-n values, pi/2 in the limit") {
  CHECK(median_variance_factor(1) == 1);
  CHECK(median_variance_factor(2) == 1);
  CHECK(median_variance_factor(3) == doctest::Approx(1.3475).epsilon(0.01));
  CHECK(median_variance_factor(5) == doctest::Approx(1.4340).epsilon(0.01));
  CHECK(median_variance_factor(1000) == doctest::Approx(M_PI / 2).epsilon(0.01));
}

TEST_CASE("estimate_run_noise separates the between-run part from the within-run part") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z;
  const double between = 0.04, within = 0.02;
  std::vector<std::vector<double>> runs;
  for (int r = 0; r < 400; ++r) {
    const double b = between * z(rng);
    std::vector<double> reps;
    for (int k = 0; k < 5; ++k) reps.push_back(100 * std::exp(b + within * z(rng)));
    runs.push_back(reps);
  }
  const RunNoise n = estimate_run_noise(runs);
  CHECK(n.runs == 400);
  CHECK(n.within_sd == doctest::Approx(within).epsilon(0.05));
  CHECK(n.between_sd == doctest::Approx(between).epsilon(0.08));
  CHECK(n.run_sd == doctest::Approx(std::sqrt(between * between + 1.434 * within * within / 5)).epsilon(0.08));
  CHECK(n.between_share == doctest::Approx(0.8).epsilon(0.05));
}

TEST_CASE("compare_levels: one run a side says nothing, several runs or a noise file give a t interval") {
  const auto none = compare_levels({std::log(100.0)}, {std::log(90.0)}, std::nullopt);
  CHECK(none.basis == NoiseBasis::none);
  CHECK(std::isnan(none.p_two_sided()));
  CHECK(none.diff == doctest::Approx(std::log(0.9)));

  const auto known = compare_levels({std::log(100.0)}, {std::log(90.0)}, KnownNoise{0.02, INFINITY});
  CHECK(known.basis == NoiseBasis::noise_file);
  CHECK(known.se == doctest::Approx(0.02 * std::sqrt(2.0)));
  CHECK(known.p_down < 1e-4);
  CHECK(known.high < 0);

  // Three runs a side: the interval is the t interval with 4 df.
  const std::vector<double> a = {0.00, 0.02, -0.02}, b = {0.10, 0.12, 0.08};
  const auto runs = compare_levels(a, b, std::nullopt);
  CHECK(runs.basis == NoiseBasis::runs);
  CHECK(runs.df == 4);
  CHECK(runs.diff == doctest::Approx(0.10));
  CHECK(runs.se == doctest::Approx(0.02 * std::sqrt(2.0 / 3)));
  CHECK(runs.high - runs.diff == doctest::Approx(t_quantile(0.975, 4) * runs.se));
  CHECK(runs.p_up == doctest::Approx(t_cdf(-0.1 / runs.se, 4)));
  CHECK(runs.p_up < 0.01);
}

TEST_CASE("compare_levels: the t interval over runs covers at its stated level (simulation)") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z;
  int covered = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a, b;
    for (int k = 0; k < 3; ++k) a.push_back(0.05 * z(rng));
    for (int k = 0; k < 2; ++k) b.push_back(0.1 + 0.05 * z(rng));
    const auto d = compare_levels(a, b, std::nullopt);
    covered += d.low <= 0.1 && 0.1 <= d.high;
  }
  CHECK(covered / double(trials) == doctest::Approx(0.95).epsilon(0.015));
}

TEST_CASE("holm_reject: step-down, NaN ignored") {
  // 0.001 <= .05/3, 0.012 <= .05/2, 0.06 > .05/1
  CHECK(holm_reject({0.001, 0.06, 0.012, NAN}, 0.05) == std::vector<bool>{true, false, true, false});
  CHECK(holm_reject({0.001, 0.04, 0.012}, 0.05) == std::vector<bool>{true, true, true});
  CHECK(holm_reject({0.03, 0.04}, 0.05) == std::vector<bool>{false, false});
  CHECK(holm_reject({0.02, 0.04}, 0.05) == std::vector<bool>{true, true});
}
