// The statistics of one run's repeats: medians and intervals that state
// their coverage. Every interval says its method and the coverage that
// method reaches at its n; none is called 95 % unless it reaches 95 %. With
// few repeats the interval for a median is distribution-free, from order
// statistics: [min, max] of 3 repeats covers the median with probability
// 0.75, of 5 repeats 0.9375; 95 % needs 6. Repeats inside one process share
// its luck, so these intervals describe within-run noise only; verdicts
// between runs live in reports/analysis/ (two_level.h, nightly.h).
// Written by hand because this is the point of the project; no LibTorch, no
// I/O, deterministic.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace ftb::stats {

// Linear interpolation between order statistics (numpy's default, R type 7).
// q in [0, 1]; NaN for an empty sample.
double quantile(std::vector<double> x, double q);
double median(std::vector<double> x);

enum class IntervalMethod {
  none,                 // one value: no interval
  order_statistics,     // distribution-free interval for a median (binomial coverage)
  paired_order_statistics,  // the same over per-round ratios (rounds ran back to back)
  pairwise_ratios,      // a ratio of two unpaired samples: order statistics of all pairwise ratios (Mann-Whitney coverage)
  t_over_runs,          // Student's t over independent runs (reports/analysis/two_level.h)
  t_run_noise,          // one run's estimate, Student's t with a calibrated run-to-run sd (reports/analysis/noise.h)
};
std::string to_string(IntervalMethod m);

struct Interval {
  double estimate = 0;       // the median (or ratio of medians)
  double low = 0, high = 0;  // the interval; equal to estimate for one value
  double min = 0, max = 0;
  int n = 0;
  double coverage = std::numeric_limits<double>::quiet_NaN();  // what the method reaches at this n (NaN: none)
  IntervalMethod method = IntervalMethod::none;
};

// Coverage of [x_(k), x_(n+1-k)] (1-based order statistics) for the median:
// 1 - 2 P(Binomial(n, 1/2) <= k - 1).
double order_statistic_coverage(int n, int k);

// Median of x with the narrowest symmetric order-statistic interval whose
// coverage reaches `level`, or [min, max] with its (lower) coverage when n is
// too small for `level`. One value: low = high = estimate, coverage NaN.
Interval median_interval(const std::vector<double>& x, double level = 0.95);

// Coverage of [D_(k), D_(nm+1-k)], the order statistics of the n x m
// pairwise differences of two samples (log ratios here), for their location
// shift: 1 - 2 P(U <= k - 1), U the Mann-Whitney statistic under no shift
// (exact, from its null distribution at n, m). [min, max] of 3 x 3 ratios:
// 1 - 2 / 20 = 0.90.
double pairwise_ratio_coverage(int n, int m, int k);

// median(num) / median(den), the table's figure. Paired (the i-th values ran
// in the same round) when `paired` and the sizes agree: the order-statistic
// interval of the per-round ratios (an interval for their median, which can
// differ a little from the ratio of medians the estimate keeps). Unpaired:
// the distribution-free interval for a shift on the log scale (Moses; the
// Hodges-Lehmann family): order statistics of all n x m pairwise ratios, the
// narrowest whose exact coverage reaches `level`, or [min, max] with its
// (lower) coverage. It assumes the two samples differ by a factor (the same
// spread on the log scale), which is what a speed-up of one row over another
// in one process means. A side of one value: no interval.
Interval ratio_interval(const std::vector<double>& num, const std::vector<double>& den, bool paired,
                        double level = 0.95);

// The standard normal quantile (inverse CDF), p in (0, 1).
double normal_quantile(double p);

enum class Direction { higher_is_better, lower_is_better };

}  // namespace ftb::stats
