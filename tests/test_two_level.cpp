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
  // The p-value at Hsu's df (issue 36): each side's variance has 2 df.
  CHECK(runs.test_df == 2);
  CHECK(runs.p_up == doctest::Approx(t_cdf(-0.1 / runs.se, 2)));
  CHECK(runs.p_up < 0.02);
  CHECK(runs.var_a == doctest::Approx(sample_variance(a)));
  CHECK(runs.df_b == 2);
}

TEST_CASE("compare_levels: Welch, each side its own variance and Satterthwaite's df") {
  // A: 3 runs, noisy; B: 6 runs, quiet. Pooling would let B's quiet runs vouch for A.
  const std::vector<double> a = {0.00, 0.10, 0.03}, b = {0.05, 0.06, 0.04, 0.05, 0.055, 0.045};
  const double va = sample_variance(a) / 3, vb = sample_variance(b) / 6;
  const auto d = compare_levels(a, b, std::nullopt);
  CHECK(d.basis == NoiseBasis::runs);
  CHECK(d.se == doctest::Approx(std::sqrt(va + vb)));
  CHECK(d.df == doctest::Approx((va + vb) * (va + vb) / (va * va / 2 + vb * vb / 5)));
  CHECK(d.df < 2.2);  // A's runs are nearly all of the uncertainty: about A's two df
  CHECK(d.high - d.diff == doctest::Approx(t_quantile(0.975, d.df) * d.se));
  // A side of two runs alone: its one df, whatever Satterthwaite's estimate says.
  const auto two = compare_levels({0.00, 0.001}, b, std::nullopt);
  CHECK(two.df == 1);
  // ... unless a noise file steadies its variance.
  CHECK(compare_levels({0.00, 0.001}, b, KnownNoise{0.02, 9}).df > 1);
  // Equal sample variances and sizes: the pooled test's df (k + m - 2).
  const auto same = compare_levels({0.0, 0.02, -0.02}, {0.1, 0.12, 0.08}, std::nullopt);
  CHECK(same.df == doctest::Approx(4));
}

TEST_CASE("compare_levels: a side of one run against several, without a noise file, is the caller's stated choice") {
  const std::vector<double> a = {0.00, 0.02, -0.02};
  const auto honest = compare_levels(a, {0.1}, std::nullopt, 0.95, UnmeasuredSide::cannot_tell);
  CHECK(honest.basis == NoiseBasis::none);
  CHECK(std::isnan(honest.low));
  CHECK(honest.diff == doctest::Approx(0.1));
  // Assumed as noisy as A: A's variance (2 df) for both sides.
  const auto assumed = compare_levels(a, {0.1}, std::nullopt, 0.95, UnmeasuredSide::as_the_other_side);
  CHECK(assumed.basis == NoiseBasis::runs);
  CHECK(assumed.df == doctest::Approx(2));
  CHECK(assumed.se == doctest::Approx(0.02 * std::sqrt(1.0 / 3 + 1)));
  // One run a side: nothing either way.
  CHECK(compare_levels({0.0}, {0.1}, std::nullopt, 0.95, UnmeasuredSide::as_the_other_side).basis == NoiseBasis::none);
}

TEST_CASE("compare_levels: a noise file stands for a side of one run, joins a side's runs by df, and counts once") {
  const KnownNoise file{0.02, 9};
  // One run a side: both sides' variance is the file's, one estimate with 9 df (not 18).
  const auto one = compare_levels({0.0}, {0.1}, file);
  CHECK(one.basis == NoiseBasis::noise_file);
  CHECK(one.se == doctest::Approx(0.02 * std::sqrt(2.0)));
  CHECK(one.df == doctest::Approx(9));
  // Three runs against one: A's variance is its runs' and the file's by df, B's the file's.
  const std::vector<double> a = {0.00, 0.04, -0.04};
  const double s2 = sample_variance(a), f2 = 0.02 * 0.02;
  const double var_a = (2 * s2 + 9 * f2) / 11;
  const auto mixed = compare_levels(a, {0.1}, file);
  CHECK(mixed.basis == NoiseBasis::runs_and_noise_file);
  CHECK(mixed.se == doctest::Approx(std::sqrt(var_a / 3 + f2)));
  const double on_runs = (2.0 / 11) / 3 * s2, on_file = ((9.0 / 11) / 3 + 1) * f2;
  CHECK(mixed.df == doctest::Approx((on_runs + on_file) * (on_runs + on_file) /
                                    (on_runs * on_runs / 2 + on_file * on_file / 9)));
  // A file known exactly (infinite df): the runs add nothing, the normal quantile.
  const auto exact = compare_levels(a, {0.1}, KnownNoise{0.02, INFINITY});
  CHECK(exact.se == doctest::Approx(0.02 * std::sqrt(1.0 / 3 + 1)));
  CHECK(std::isinf(exact.df));
}

TEST_CASE("compare_levels: the t interval over runs covers at its stated level (simulation)") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z;
  int covered = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a, b;
    for (int k = 0; k < 3; ++k) a.push_back(0.05 * z(rng));
    for (int k = 0; k < 4; ++k) b.push_back(0.1 + 0.05 * z(rng));
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
