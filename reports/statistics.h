// The statistics that decide what a number means: every figure ftbench
// reports over repeats is a median with a 95 % bootstrap confidence interval,
// a ratio of two rows is bootstrapped in pairs, and a regression is decided by
// a rank test plus a minimum effect, never by one number against another.
// Written by hand because this is the point of the project; no LibTorch, no
// I/O, deterministic (every resampling takes a seed).
//
// Anchors: Google Benchmark's compare.py (Mann-Whitney U on repetitions),
// asv and Bencher (a rolling window of history, thresholds from its spread),
// MLPerf (median-style robust statistics).
#pragma once

#include <cstdint>
#include <vector>

namespace ftb::stats {

// Linear interpolation between order statistics (numpy's default, R type 7).
// q in [0, 1]; NaN for an empty sample.
double quantile(std::vector<double> x, double q);
double median(std::vector<double> x);

struct Interval {
  double estimate = 0;  // the median (or ratio of medians)
  double low = 0, high = 0;  // the confidence interval; equal to estimate for one value
  double min = 0, max = 0;
  int n = 0;
};

// Median of x with a percentile-bootstrap CI (resampling x with replacement).
// One value: low = high = estimate (no interval can be claimed).
Interval median_interval(const std::vector<double>& x, uint64_t seed, double level = 0.95, int resamples = 4000);

// median(num) / median(den) with a bootstrap CI. Paired (the i-th values
// resampled together) when `paired` and the sizes agree: repeats that ran
// alternately on one machine share its drift, and pairing cancels it.
Interval ratio_interval(const std::vector<double>& num, const std::vector<double>& den, bool paired, uint64_t seed,
                        double level = 0.95, int resamples = 4000);

// The bootstrap replicates behind ratio_interval (the same draws for the same
// seed): median(num*) / median(den*) per resample; empty when both samples
// hold one value (nothing to resample) or either is empty.
std::vector<double> ratio_replicates(const std::vector<double>& num, const std::vector<double>& den, bool paired,
                                     uint64_t seed, int resamples = 4000);

// The geometric mean of several ratios of medians (one per scenario) with a
// percentile-bootstrap CI: each ratio is resampled as in ratio_interval
// (unpaired, seed + its index), and replicate i of the geometric mean is the
// geometric mean of replicate i of every ratio. min/max: the smallest and
// largest single ratio; n: the number of ratios. A ratio over one value on
// each side contributes its point value to every replicate.
struct RatioSamples {
  std::vector<double> num, den;
};
Interval geomean_interval(const std::vector<RatioSamples>& ratios, uint64_t seed, double level = 0.95,
                          int resamples = 4000);

struct RankTest {
  double u = 0;        // Mann-Whitney U of `a` (pairs a_i > b_j, ties count 1/2)
  double p_less = 1;   // one-sided p-value for "a tends to be smaller than b"
  double p_greater = 1;
  double p_two_sided = 1;
  bool exact = false;  // exact null distribution (small samples, no ties) or normal approximation
};
// Mann-Whitney U test. Exact when there are no ties and n*m <= 10,000
// (the null distribution by recursion), else the normal approximation with
// tie and continuity corrections.
RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

// Tonight's repeats against the history's own noise (Bencher's z-score, on
// logs, so noise is multiplicative): z = (mean log current - mean log history)
// / (sigma * sqrt(1/n + 1/m)), sigma the history's robust spread of log
// values (1.4826 x MAD). The history is long (weeks of nights), so sigma is
// known well and the test has the power a 5-repeat night cannot give a rank
// test on its own.
struct NoiseTest {
  double z = 0;
  double p_less = 1, p_greater = 1;  // one-sided: current lower / higher than history
  double sigma_log = 0;              // the history's noise, log scale (~ relative)
};
NoiseTest z_vs_history(const std::vector<double>& history, const std::vector<double>& current);
// The same z-test with the noise known beforehand (sigma_log from a
// calibration, reports/noise.h), for a reference too short to estimate it:
// one baseline report of a few repeats.
NoiseTest z_with_sigma(const std::vector<double>& reference, const std::vector<double>& current, double sigma_log);

// The standard normal quantile (inverse CDF), p in (0, 1).
double normal_quantile(double p);

// The smallest one-sided p-value a Mann-Whitney test of n against m values
// can give (1 / C(n+m, n), all of one sample below the other): with 3 against
// 3 it is 0.05, so such a test can never pass a 0.05 level.
double mann_whitney_min_p(int n, int m);

// Robust spread: the median absolute deviation scaled to a normal sigma
// (x 1.4826), divided by the median. 0 for fewer than two values.
double robust_cv(const std::vector<double>& x);

enum class Direction { higher_is_better, lower_is_better };

// A regression needs all three: the z-test against the history's noise at
// `alpha`, the rank test agreeing at `rank_alpha` (robust to one wild repeat
// tonight), and a change beyond `min_effect`. Measured by simulation
// (tests/test_statistics.cpp): with 5 repeats a night, a window of 20 nights
// and 5 % multiplicative noise, a 10 % slowdown is caught 97.3 % of the time
// and an unchanged build flagged 0.6 % (5,000 trials).
struct RegressionRule {
  double alpha = 0.005;      // one-sided z-test level
  double rank_alpha = 0.05;  // one-sided Mann-Whitney level
  double min_effect = 0.03;  // relative change that matters at all
};

struct Verdict {
  bool regressed = false, improved = false;
  double change = 0;  // median(current) / median(history) - 1
  NoiseTest noise;
  RankTest rank;
};

// Did `current` (this run's repeats) get worse than `history` (the repeats of
// a rolling window of earlier runs), in the bad direction of the metric?
Verdict judge(const std::vector<double>& history, const std::vector<double>& current, Direction direction,
              const RegressionRule& rule = {});

}  // namespace ftb::stats
