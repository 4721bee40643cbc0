// Per-series variances shrunk toward what the report's series share
// (empirical Bayes: Smyth 2004, the moderated t of limma), robust to a series
// with an outlying night.
//
// Series g has a sample variance s2[g] on d[g] degrees of freedom; the true
// variances scatter as 1 / sigma2 ~ chi2(d0) / (d0 s0^2), with d0 and s0^2
// fitted from the moments of log s2 (d0 at the lower end the series support:
// their spread of log variances at its kSpreadConfidence upper bound, since a
// handful of series can look alike by chance). A series' moderated variance
// is (d0 s0^2 + d s2) / (d0 + d) on d0 + d degrees of freedom (at most the
// pool's total): series that differ keep their own spread, alike ones pool.
// A series improbably noisy for the prior fitted on the others (upper tail of
// F(d, d0) below `outlier_alpha`) keeps its own s2 and df and is left out of
// the fit, which is redone. Why moderated and not pooled: scenarios' noise
// differs, and a pool judges the noisier ones by the quieter (docs/statistics.md).
// Pure, deterministic, no LibTorch.
#pragma once

#include <limits>
#include <vector>

namespace ftb::stats {

inline constexpr double kSpreadConfidence = 0.90;

struct VariancePrior {
  double s0_squared = std::numeric_limits<double>::quiet_NaN();  // the pool's typical variance
  double d0 = 0;               // its strength in degrees of freedom (0: none; infinity: all series alike)
  double total_df = 0;         // sum of the pooled series' df: the most a moderated variance can claim
  int pooled = 0;              // series in the fit
  std::vector<bool> outlier;   // per series: its own spread (left out of the fit)
};

struct ModeratedVariance {
  double var = std::numeric_limits<double>::quiet_NaN();
  double df = 0;
  bool own = false;  // an outlier: its own s2 and df
};

// s2[g] > 0 with d[g] >= 1 take part; others (NaN, <= 0 variance, d < 1) are
// ignored and marked neither. With fewer than `min_series` usable series
// there is no prior (d0 = 0: every series its own).
VariancePrior fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& d, double outlier_alpha,
                                 int min_series = 3);

ModeratedVariance moderate(const VariancePrior& prior, int g, double s2, double d);

// Inverse of the trigamma function (Newton's method as in limma's trigammaInverse).
double trigamma_inverse(double x);

}  // namespace ftb::stats
