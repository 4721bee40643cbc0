// Two levels of noise. Repeats inside one process share that process's luck
// (thread placement, memory layout, the neighbour's load), so they estimate
// the within-run noise only; runs (processes, nights, machines) are the unit
// of independence. Everything here works on the log of a metric, so noise is
// relative: a difference of 0.05 in log is a 5.1 % ratio.
//
// A run's level is the median of its log repeats. Its variance is
//   between-run variance + kappa(n) * within-run variance / n,
// kappa(n) the median's variance inflation over the mean for normal samples
// (1 for n <= 2, 1.35 for 3, 1.43 for 5, pi/2 for large n).
//
// Hand-written because this is the point of the project; the t distribution
// comes from Boost.Math. No LibTorch, no I/O, deterministic.
#pragma once

#include "reports/analysis/verdict.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ftb::stats {

// Student's t: CDF and quantile; df = infinity (or > 1e6) is the normal.
double t_cdf(double t, double df);
double t_quantile(double p, double df);
// The two-sided `level` t interval of an estimate with standard error `se`
// at `df` degrees of freedom: estimate -+ t_{(1 + level) / 2, df} se (the one
// implementation: compare_levels, regress.json). NaN bounds unless se > 0,
// df > 0 and the estimate is finite (no spread, or no test: no interval).
struct TBounds {
  double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
};
TBounds t_interval(double estimate, double se, double df, double level);

// n * Var(median of n iid N(0, 1)) by a deterministic simulation (200,000
// medians, fixed seed, standard error about 0.3 %); 1 for n <= 2, pi/2 (with
// its 1/n correction) above 60.
double median_variance_factor(int n);

// The median of the log values (NaN when empty or any value <= 0).
double run_level(const std::vector<double>& repeats);
std::vector<double> log_values(const std::vector<double>& x);

// Within-run noise: the pooled sample variance of log repeats around each
// run's mean (runs of one repeat add nothing), its degrees of freedom and the
// mean repeats per run.
struct WithinNoise {
  double var = 0;
  double df = 0;
  double mean_n = 0;
};
WithinNoise within_run_noise(const std::vector<std::vector<double>>& runs);

// Sample variance (n - 1) and its mean; NaN variance for fewer than two values.
double sample_variance(const std::vector<double>& x);
double mean(const std::vector<double>& x);

// Everything a set of A/A runs says about one metric (log scale):
//   run_sd      standard deviation of the runs' levels (what separates two runs);
//   within_sd   the within-run noise of one repeat;
//   between_sd  sqrt(max(0, run_sd^2 - kappa(n) within_sd^2 / n)): the part a
//               process's luck adds that no number of repeats removes.
struct RunNoise {
  int runs = 0;
  double mean_repeats = 0;
  double run_sd = std::numeric_limits<double>::quiet_NaN();
  double run_df = 0;
  double within_sd = std::numeric_limits<double>::quiet_NaN();
  double within_df = 0;
  double between_sd = std::numeric_limits<double>::quiet_NaN();
  double between_share = std::numeric_limits<double>::quiet_NaN();  // between / (between + within) variance of one repeat
};
RunNoise estimate_run_noise(const std::vector<std::vector<double>>& runs);

// A run-to-run noise known beforehand (a calibrate noise file): the sd of a
// run's log level and the degrees of freedom it was estimated with.
struct KnownNoise {
  double run_sd = 0;
  double df = std::numeric_limits<double>::infinity();
};

// Whether a known noise can join an estimate at all (a positive sd, with
// degrees of freedom): the one guard compare, regress and the nightly rule use.
bool usable(const std::optional<KnownNoise>& k);

// The one join of an estimate's own variance (own_df degrees of freedom)
// with a known noise's: weights by df, adding to 1; a noise known exactly
// (infinite df) takes all the weight, and so does any noise where the
// estimate has no df of its own. The joined df is own_df + known_df.
struct JoinWeights {
  double own = 0, known = 0;
};
JoinWeights join_weights(double own_df, double known_df);

enum class NoiseBasis { runs, noise_file, runs_and_noise_file, none };
std::string to_string(NoiseBasis b);

// B's runs against A's runs: the difference of their mean levels (log) with a
// Welch t interval over runs. Each side keeps its own run-to-run variance
// (two machines rarely share their noise, and pooling lets the quieter side
// vouch for the noisier one): from its own runs (k >= 2, df k - 1), from a
// noise file (its df), or both, weighted by their df. The standard error is
// sqrt(var_a / k_a + var_b / k_b); its degrees of freedom are
// Satterthwaite's over the independent estimates it is made of (A's runs,
// B's runs, the noise file counted once even when both sides use it). A
// side whose variance is its two runs' alone (one df) sets the df to 1:
// Satterthwaite's estimate swings with that variance and under-covers
// (90 % at 2 runs against 6), the t with 1 df covers at least the level. A
// noise file with infinite df is the variance itself: the runs add nothing
// to it.
//
// A side of one run and no noise file has no variance of its own. What
// happens then is the caller's choice, stated where it is used:
//   cannot_tell        basis none: no p-value, no interval (compare: two
//                      machines or builds; one's noise says nothing of the
//                      other's);
//   as_the_other_side  it is assumed as noisy as the other side, whose runs'
//                      variance (and df) stand for both (regress: tonight is
//                      one more run of its baseline's configuration on its
//                      machine).
// One run a side and no noise file: basis none either way. A level that is
// not finite (a run with a value <= 0) also gives basis none, diff NaN.
struct LevelDifference {
  int runs_a = 0, runs_b = 0;
  double diff = std::numeric_limits<double>::quiet_NaN();  // mean level B - mean level A
  double se = std::numeric_limits<double>::quiet_NaN();
  double df = 0;  // Satterthwaite's (fractional); infinity when every variance is known exactly
  NoiseBasis basis = NoiseBasis::none;
  double p_up = std::numeric_limits<double>::quiet_NaN();    // one-sided: B above A
  double p_down = std::numeric_limits<double>::quiet_NaN();  // one-sided: B below A
  double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();  // of diff
  double level = 0.95;
  // The df the p-values are taken at: Satterthwaite's, but never more than
  // the df of either side's variance estimate (Hsu's small-sample
  // correction). Satterthwaite's estimate grows exactly when a noisy side's
  // few runs came out close together, so its tail is too thin for Holm's
  // small per-row levels: a noisy side of 3 runs gave a false verdict in
  // 6.4-7.2 % of 4-row A/A comparisons at a family 0.05; at the smaller df
  // the test is conservative whatever the two sides' noise (Scheffe 1970;
  // tests/test_interval_coverage.cpp measures it). The interval keeps
  // Satterthwaite's df: its coverage is measured there too.
  double test_df = 0;
  // Each side's variance of one run's level (log^2) as used (its runs' and/or
  // the noise file's; a side of one run taken as noisy as the other: the
  // other's) and that estimate's df (infinite: known exactly). What
  // runs_to_resolve (resolution.h) plans further runs from.
  double var_a = std::numeric_limits<double>::quiet_NaN(), var_b = std::numeric_limits<double>::quiet_NaN();
  double df_a = 0, df_b = 0;
  double p_two_sided() const;
};
enum class UnmeasuredSide { cannot_tell, as_the_other_side };
LevelDifference compare_levels(const std::vector<double>& a_levels, const std::vector<double>& b_levels,
                               const std::optional<KnownNoise>& noise, double level = 0.95,
                               UnmeasuredSide one_run = UnmeasuredSide::as_the_other_side);

// The compare rule over many rows (B against A, higher is better): Holm's
// procedure over every row's two-sided p (one family, at `family_alpha`),
// then verdict.h's decide() for each row: better (worse) where rejected and
// the ratio at or beyond 1 +- min_effect; same where the interval lies
// inside +-min_effect; else cannot tell; insufficient where nothing
// estimated the run-to-run noise (basis none).
std::vector<Decision> run_verdicts(const std::vector<LevelDifference>& rows, double family_alpha, double min_effect);

// Holm's step-down procedure: which hypotheses are rejected at family-wise
// error `alpha` (NaN p-values are never rejected and do not count).
std::vector<bool> holm_reject(const std::vector<double>& p, double alpha);

}  // namespace ftb::stats
