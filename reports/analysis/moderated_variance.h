// Per-series variances shrunk toward what the report's series share
// (empirical Bayes, Smyth 2004, "Linear models and empirical Bayes methods
// for assessing differential expression", the moderated t of limma), robust
// to series with an outlying night (their own spread, left out of the pool).
//
// Each series g has a sample variance s2[g] with d[g] degrees of freedom. The
// model: s2[g] ~ sigma2[g] chi2(d[g]) / d[g], and the series' true variances
// scatter around a common s0^2 as 1 / sigma2 ~ chi2(d0) / (d0 s0^2). d0 and
// s0^2 are fitted from the s2's by the moments of log s2 (digamma, trigamma);
// a series' moderated variance is (d0 s0^2 + d s2) / (d0 + d) with d0 + d
// degrees of freedom (at most the pool's total). d0 is fitted at the lower
// end of what the series support: their spread of log variances taken at its
// kSpreadConfidence upper confidence bound, since a handful of series can
// look alike by chance. Series that differ a lot get
// a small d0 (each keeps its own spread); series alike get a large one (the
// pool). A series whose s2 is improbably large for the prior fitted on the
// other series (upper tail of F(d, d0) below `outlier_alpha`) is an outlier:
// it keeps its own s2 and df and is left out of the fit, which is then
// redone — so one scenario's bad night neither blinds the others nor is
// hidden by them.
//
// Why not the pooled variance with an F-test per series (the rule before):
// noise that differs by scenario (this project's calibrations: 11 %, 5 %,
// 11 %, 2.2 % between nights) made the quieter pool judge the noisier
// scenarios, and an outlying series stayed in the pool it was tested against.
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
