#include "reports/analysis/nightly.h"

#include "reports/analysis/resolution.h"
#include "reports/analysis/verdict.h"

#include "reports/analysis/moderated_variance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ftb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What one series contributes to the pooled model.
struct SeriesFit {
  bool judged = false;
  std::vector<double> levels;  // history levels
  double tonight = kNaN;
  std::vector<int> reference;  // history nights (index) of tonight's reference level
  int outlier = -1;            // a history night left out of the spread and reference
  double outlier_p = kNaN;
  double ss = 0, df = 0;       // residuals of history levels around their segments' means
  WithinNoise within;
  double within_part = 0;      // kappa(n) var_w / n at the history's repeats a night
  std::vector<double> tonight_n;  // repeats of each of tonight's runs
};

double kappa_over_n(double n) {
  const int k = std::max(1, static_cast<int>(std::lround(n)));
  return median_variance_factor(k) / k;
}

// The levels of the history's nights and, last, tonight's: the mean of its
// runs' levels (NaN when one has none).
std::vector<double> levels_of(const NightSeries& s) {
  std::vector<double> all;
  for (const auto& n : s.nights) all.push_back(run_level(n));
  double sum = run_level(s.tonight);
  for (const auto& r : s.reruns) sum += run_level(r);
  all.push_back(sum / static_cast<double>(1 + s.reruns.size()));
  return all;
}

// The residual sum of squares of `levels` around their segments' means
// ([bounds[k], bounds[k + 1])), night `skip` left out, and the number of
// segments with a value.
struct Spread {
  double ss = 0;
  int segments = 0;
};
Spread spread(const std::vector<double>& levels, const std::vector<int>& bounds, int skip) {
  Spread out;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    std::vector<double> seg;
    for (int n = bounds[k]; n < bounds[k + 1]; ++n)
      if (n != skip) seg.push_back(levels[static_cast<size_t>(n)]);
    if (seg.empty()) continue;
    ++out.segments;
    const double m = mean(seg);
    for (double x : seg) out.ss += (x - m) * (x - m);
  }
  return out;
}

// The history night farthest from its segment's level, by its deleted
// residual's t (the others' mean and spread, at least the within-run part
// `floor_var`), where Bonferroni's p over the nights is below `alpha`.
struct Outlier {
  int night = -1;
  double p = 1;
};
Outlier outlying_night(const std::vector<double>& levels, const std::vector<int>& bounds, double floor_var,
                       double alpha) {
  const int T = static_cast<int>(levels.size());
  const double df = T - spread(levels, bounds, -1).segments - 1;  // without the night tested
  Outlier best;
  if (df < 3) return best;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const int a = bounds[k], b = bounds[k + 1];
    if (b - a < 3) continue;  // the others' mean needs two nights
    for (int n = a; n < b; ++n) {
      std::vector<double> others;
      for (int j = a; j < b; ++j)
        if (j != n) others.push_back(levels[static_cast<size_t>(j)]);
      const double s2 = std::max(spread(levels, bounds, n).ss / df, floor_var);
      const double se = std::sqrt(s2 * (1 + 1.0 / static_cast<double>(others.size())));
      if (!(se > 0)) continue;
      const double t = (levels[static_cast<size_t>(n)] - mean(others)) / se;
      const double p = std::min(1.0, T * 2 * t_cdf(-std::abs(t), df));
      if (p < best.p) best = {n, p};
    }
  }
  return best.p < alpha ? best : Outlier{};
}

// Segments over the history nights from the change points (the fresh one
// too: last night's level is its own), and the reference nights: those of
// the last segment, or the one before it where the fresh step is tonight's.
void segment(SeriesFit& f, const std::vector<ChangePoint>& steps, bool untrusted_fresh, double outlier_alpha) {
  const int T = static_cast<int>(f.levels.size());
  std::vector<int> bounds = {0};
  for (const auto& c : steps)
    if (c.index < T) bounds.push_back(c.index);
  bounds.push_back(T);
  const Spread all = spread(f.levels, bounds, -1);
  f.ss = all.ss;
  f.df = T - all.segments;
  const Outlier o = outlying_night(f.levels, bounds, f.within_part, outlier_alpha);
  if (o.night >= 0) {
    f.outlier = o.night;
    f.outlier_p = o.p;
    f.ss = spread(f.levels, bounds, o.night).ss;
    f.df -= 1;
  }
  int start = bounds[bounds.size() - 2], end = T;
  if (untrusted_fresh && bounds.size() >= 3) {
    start = bounds[bounds.size() - 3];
    end = T - 1;
  }
  for (int n = start; n < end; ++n)
    if (n != f.outlier) f.reference.push_back(n);
}

// `trust_fresh`: whether a change point at the last history night (a new
// level of that night and tonight only) is a step to judge tonight against;
// judge_nights decides it by whether that night was itself flagged.
SeriesFit fit(const NightSeries& s, std::vector<double> levels, const NightlyRule& rule, NightVerdict& v,
              const std::vector<ChangePoint>& steps, bool trust_fresh) {
  SeriesFit f;
  v.history_nights = static_cast<int>(s.nights.size());
  f.tonight = levels.back();
  levels.pop_back();
  f.levels = std::move(levels);
  v.tonight_level = f.tonight;
  if (!std::isfinite(f.tonight)) {
    v.note = "tonight has no positive value";
    return f;
  }
  const int T = static_cast<int>(f.levels.size());
  // A fresh change point (last night and tonight on a new level) that last
  // night did not raise: the step is tonight's too. Tonight is judged against
  // the level before it (last night left out of the reference), and the step
  // is not one the history shows.
  const bool untrusted_fresh = !trust_fresh && !steps.empty() && steps.back().index == T - 1;
  v.steps = steps;
  if (untrusted_fresh) v.steps.pop_back();
  if (T < rule.min_nights) {
    v.note = "insufficient history: " + std::to_string(T) + " night(s) of this series, " +
             std::to_string(rule.min_nights) + " needed";
    return f;
  }
  // From the history only: a noisy night must not widen its own yardstick.
  f.within = within_run_noise(s.nights);
  double hist_n = 0;
  for (const auto& n : s.nights) hist_n += static_cast<double>(n.size());
  hist_n /= T;
  f.within_part = std::isfinite(f.within.var) ? kappa_over_n(hist_n) * f.within.var : 0;
  f.tonight_n = {static_cast<double>(s.tonight.size())};
  for (const auto& r : s.reruns) f.tonight_n.push_back(static_cast<double>(r.size()));
  segment(f, steps, untrusted_fresh, rule.outlier_alpha);
  if (f.df < 1 || f.reference.empty()) {
    v.note = "no spread to estimate: every history night is its own level";
    return f;
  }
  f.judged = true;
  return f;
}

}  // namespace

std::string describe(const NightlyRule& r) {
  // The false-step rates are measured (tests/test_change_points.cpp) for the
  // default change-point settings only.
  const std::string rates = r.change_points.defaults()
                                ? "flat series show a false step in 0.59 % of 8-night and 1.48 % of 20-night "
                                  "histories"
                                : "false-step rates not measured for these settings";
  char buf[1600];
  std::snprintf(buf, sizeof buf,
                "each night is one sample (the median of its repeats, log scale); tonight is judged against the "
                "nights since the series' last change point (E-divisive means with Otava's relaxed first pass at "
                "p < %.3g, a level that leaves and comes back proposed as two changes, each change kept where a "
                "Student t-test against its neighbouring segments gives p < %.3g, at least %d nights a side; %s) "
                "with a one-sided t-test whose noise has a "
                "within-run part (per scenario, from every repeat) and a between-night part: each scenario's own "
                "spread of its nights (a night improbably far from the rest, p < %.3g over the nights, left out), "
                "moderated toward what the report's scenarios share by empirical Bayes (a scenario improbably "
                "noisier than the others, p < %.3g, keeps its own); a regression needs Holm's procedure over every "
                "scenario of the report at %.3g (the whole report's false-alarm rate) and a change beyond %.3g %%; "
                "\"same\" needs the change's %.3g %% interval inside +-%.3g %%, otherwise \"cannot tell\"; "
                "at least %d nights of history",
                r.change_points.first_pass_p, r.change_points.max_p, r.change_points.min_segment, rates.c_str(),
                r.outlier_alpha, r.heterogeneity_alpha, r.family_alpha, 100 * r.min_effect, 100 * r.interval_level,
                100 * r.min_effect, r.min_nights);
  return buf;
}

std::string cannot_tell_text(const NightVerdict& v, const NightlyRule& r) {
  if (v.outcome != Verdict::cannot_tell) return "";
  char buf[400];
  std::snprintf(buf, sizeof buf, "the change's %.3g %% interval %+.1f to %+.1f %% still includes changes beyond +-%.3g %%",
                100 * r.interval_level, 100 * v.low, 100 * v.high,
                100 * (v.same_within > 0 ? v.same_within : r.min_effect));
  std::string out = buf;
  std::string runs = v.more_runs > 0 ? std::to_string(v.more_runs) + " more run" + (v.more_runs > 1 ? "s" : "") +
                                           " tonight"
                                     : "";
  std::string nights = v.more_nights > 0 ? std::to_string(v.more_nights) + " more night" +
                                               (v.more_nights > 1 ? "s" : "") + " of history"
                                         : "";
  if (runs.empty() && nights.empty())
    return out + "; no plan of up to " + std::to_string(kMaxMoreRuns) + " more runs tonight, " +
           std::to_string(kMaxMoreNights) + " more nights of history, or " +
           std::to_string(std::min(kMaxMoreRuns, kMaxMoreNights)) + " of each settles it at this noise";
  if (v.jointly) return out + "; " + nights + " and " + runs + " would settle it at this noise, if the estimate holds";
  return out + "; " + runs + (runs.empty() || nights.empty() ? "" : " or ") + nights +
         " would settle it at this noise, if the estimate holds";
}

namespace {

// The history nights with a level (every repeat > 0, at least one): a night
// without one (a crashed row, a zero written by a broken job) is left out,
// named in the verdict's note, instead of ending the judging of the series.
struct CleanSeries {
  NightSeries series;
  std::vector<int> kept;  // original index of each kept night
  std::vector<int> left;  // and of each left out
  std::string note;
};

CleanSeries without_empty_nights(const NightSeries& s) {
  CleanSeries c;
  c.series = s;  // every setting of the series as it is; the nights as kept below
  c.series.nights.clear();
  for (size_t n = 0; n < s.nights.size(); ++n)
    (std::isfinite(run_level(s.nights[n])) ? c.kept : c.left).push_back(static_cast<int>(n));
  for (int n : c.kept) c.series.nights.push_back(s.nights[static_cast<size_t>(n)]);
  if (!c.left.empty()) {
    c.note = "left out history night(s) ";
    for (size_t k = 0; k < c.left.size(); ++k) c.note += (k ? ", " : "") + std::to_string(c.left[k] + 1);
    c.note += " of " + std::to_string(s.nights.size()) + " (no value > 0)";
  }
  return c;
}

// The noise of tonight - reference for one series: a level's variance
// (moderated, at least its within-run part), the within-run variance of a
// repeat, and a calibrate noise file's run-to-run sd where it joins.
struct SeriesNoise {
  double level_var = 0, wh = 0, var_w = 0, df = 0;
  std::optional<KnownNoise> known;  // joins the estimate, weighted by its df
};

// Var(tonight - reference) and its df, tonight from runs of `tonight_n`
// repeats, the reference from R nights: the reference mean's level_var / R,
// plus tonight's mean of K independent runs, each a level's variance with
// its own repeats' within part: sum_k (level_var - wh + wt_k) / K^2 (K = 1:
// level_var (1 + 1/R) + wt - wh).
std::pair<double, double> variance(const SeriesNoise& n, const std::vector<double>& tonight_n, double R) {
  const double K = static_cast<double>(tonight_n.size());
  double var_tonight = 0;
  for (double r : tonight_n) var_tonight += n.level_var - n.wh + kappa_over_n(r) * n.var_w;
  var_tonight /= K * K;
  double var = n.level_var / R + var_tonight, df = n.df;
  if (const auto& k = n.known) {
    const double known = k->run_sd * k->run_sd * (1 / K + 1 / R);
    const JoinWeights w = join_weights(df, k->df);  // two_level.h: the one join
    var = w.own * var + w.known * known;
    df = std::isfinite(k->df) ? df + k->df : k->df;
  }
  return {var, df};
}

SeriesNoise noise_of(const SeriesFit& f, const NightSeries& s, const VariancePrior& prior, int i, NightVerdict& v) {
  SeriesNoise n;
  n.var_w = std::isfinite(f.within.var) ? f.within.var : 0;
  n.wh = f.within_part;
  const ModeratedVariance mv = moderate(prior, i, f.ss / f.df, f.df);
  // A night's level varies at least as much as its repeats make it (the
  // within part, from many repeats): a floor when few nights look calm.
  n.level_var = std::max(mv.var, n.wh);
  n.df = mv.df;
  v.own_spread = mv.own;
  // A calibrated run-to-run noise joins the estimate, weighted by its
  // degrees of freedom, unless this series has just shown itself an
  // outlier among the report's (then its own spread stands).
  if (usable(s.noise) && !v.own_spread) n.known = s.noise;
  v.within_sd = std::sqrt(n.var_w);
  v.between_sd = std::sqrt(std::max(0.0, n.level_var - n.wh));
  return n;
}

// The t-test of one series: tonight's level against its reference level.
SeriesNoise test_series(const SeriesFit& f, const NightSeries& s, const VariancePrior& prior, int i,
                        NightVerdict& v) {
  const double R = static_cast<double>(f.reference.size());
  v.reference_nights = static_cast<int>(R);
  std::vector<double> ref;
  for (int n : f.reference) ref.push_back(f.levels[static_cast<size_t>(n)]);
  v.reference_level = mean(ref);
  const SeriesNoise n = noise_of(f, s, prior, i, v);
  const auto [var, df] = variance(n, f.tonight_n, R);
  v.tonight_runs = static_cast<int>(f.tonight_n.size());
  v.se = std::sqrt(var);
  v.df = df;
  const double diff = f.tonight - v.reference_level;
  v.change = std::expm1(diff);
  if (!(v.se > 0) || !(df > 0)) {
    v.p_worse = v.p_better = 1;
  } else {
    const double t = diff / v.se;
    const bool higher = s.direction == Direction::higher_is_better;
    v.p_worse = higher ? t_cdf(t, df) : t_cdf(-t, df);
    v.p_better = higher ? t_cdf(-t, df) : t_cdf(t, df);
  }
  return n;
}

// The fewest of 1..most for which `fits` holds (monotone), -1 if none.
template <class Fits>
int fewest(int most, Fits fits) {
  if (!fits(most)) return -1;
  int lo = 0, hi = most;  // fits(hi), !fits(lo) (or lo = 0)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (fits(mid) ? hi : lo) = mid;
  }
  return hi;
}

double interval_quantile(const NightlyRule& rule, double df) {
  return df > 0 ? t_quantile((1 + rule.interval_level) / 2, df) : 0.0;
}

// verdict.h's one rule on the night's change: its interval at
// rule.interval_level (the test's se and df), the family's one-sided test
// toward the side the change lies on, min_effect, and the series' calibrated
// minimum detectable change for "same".
void decide_night(NightVerdict& v, const NightSeries& s, bool worse, bool better, const NightlyRule& rule) {
  const double diff = std::log1p(v.change);
  const double h = v.se > 0 ? interval_quantile(rule, v.df) * v.se : 0.0;
  const double bad = s.direction == Direction::higher_is_better ? -v.change : v.change;
  const Decision d = decide({diff, diff - h, diff + h, rule.interval_level, {}, {}},
                            {rule.min_effect, bad > 0 ? worse : better, s.direction, s.same_within});
  v.outcome = d.verdict;
  v.why = d.reason.ruling;
  v.low = d.reason.low;
  v.high = d.reason.high;
  v.same_within = d.reason.same_within;
}

// A cannot tell's plan: the runs or nights that would settle it at this
// noise if the estimate holds: the planned half-width at most resolution.h's
// settling_half_width, the target every rule plans toward; the noise model
// is the nightly rule's own. More runs tonight leave the between-night
// estimate and its df as they are; each more night of history adds one df.
void plan_settling(NightVerdict& v, const SeriesFit& f, const SeriesNoise& n, const NightlyRule& rule) {
  const double diff = std::log1p(v.change), effect = v.same_within;
  auto quantile = [&](double df) { return interval_quantile(rule, df); };
  const double q = quantile(v.df);
  const double target = settling_half_width(diff, effect);
  const double R = static_cast<double>(f.reference.size());
  // With `nights` more nights of history (each one more df) and `runs` more runs tonight.
  auto settles = [&](int nights, int runs) {
    SeriesNoise later = n;
    later.df += nights;
    std::vector<double> tonight = f.tonight_n;
    tonight.insert(tonight.end(), static_cast<size_t>(runs), f.tonight_n.front());
    const auto [var, df] = variance(later, tonight, R + nights);
    return (nights ? quantile(df) : q) * std::sqrt(var) <= target;
  };
  v.more_runs = fewest(kMaxMoreRuns, [&](int more) { return settles(0, more); });
  v.more_nights = fewest(kMaxMoreNights, [&](int more) { return settles(more, 0); });
  if (v.more_runs > 0 || v.more_nights > 0) return;
  // Neither alone: as many more nights as more runs tonight, the fewest of
  // each (a bisection, as above: the power simulations judge every series of
  // every simulated night, and most of their nights are cannot tell).
  const int both = fewest(std::min(kMaxMoreRuns, kMaxMoreNights), [&](int more) { return settles(more, more); });
  if (both < 0) return;
  v.more_nights = v.more_runs = both;
  v.jointly = true;
}

// Whether each series' change point at its last history night is trusted:
// that night was itself flagged when it ran (judged as tonight against the
// nights before it).
std::vector<bool> fresh_trust(const std::vector<NightSeries>& series, const std::vector<std::vector<ChangePoint>>& steps,
                              const NightlyRule& rule, bool check_fresh,
                              std::vector<NightVerdict> (*judge)(const std::vector<NightSeries>&, const NightlyRule&, bool)) {
  std::vector<bool> trust(series.size(), false);
  bool any_fresh = false;
  for (size_t i = 0; i < series.size(); ++i) {
    const int T = static_cast<int>(series[i].nights.size());
    any_fresh = any_fresh || (!steps[i].empty() && steps[i].back().index == T - 1);
  }
  if (!any_fresh || !check_fresh) return trust;
  std::vector<NightSeries> before;
  for (const auto& s : series) {
    NightSeries b = s;  // the series' settings; its last history night as tonight, no reruns
    b.nights.clear();
    b.tonight.clear();
    b.reruns.clear();
    if (!s.nights.empty()) {
      b.nights.assign(s.nights.begin(), s.nights.end() - 1);
      b.tonight = s.nights.back();
    }
    before.push_back(std::move(b));
  }
  const auto then = judge(before, rule, false);
  for (size_t i = 0; i < series.size(); ++i)
    trust[i] = then[i].outcome == Verdict::worse || then[i].outcome == Verdict::better;
  return trust;
}

// Back to the caller's night numbers, with the notes.
void finish(NightVerdict& v, const SeriesFit& f, const CleanSeries& c, size_t original_nights) {
  const auto& kept = c.kept;
  for (int k : f.reference) v.reference.push_back(kept[static_cast<size_t>(k)]);
  v.history_nights = static_cast<int>(original_nights);
  for (auto& s : v.steps)
    s.index = s.index < static_cast<int>(kept.size()) ? kept[static_cast<size_t>(s.index)] : v.history_nights;
  v.left_out = c.left;
  if (!c.note.empty()) v.note = v.note.empty() ? c.note : v.note + "; " + c.note;
  if (f.judged && f.outlier >= 0) {
    v.outlying_night = kept[static_cast<size_t>(f.outlier)];
    v.outlying_p = f.outlier_p;
    char buf[200];
    std::snprintf(buf, sizeof buf, "history night %d of %zu left out of the spread and reference (an outlier of the series, p %.2g)",
                  v.outlying_night + 1, original_nights, f.outlier_p);
    v.note = v.note.empty() ? buf : v.note + "; " + buf;
  }
}

std::vector<NightVerdict> judge(const std::vector<NightSeries>& original, const NightlyRule& rule, bool check_fresh) {
  std::vector<CleanSeries> clean;
  std::vector<NightSeries> series;
  for (const auto& s : original) {
    clean.push_back(without_empty_nights(s));
    series.push_back(clean.back().series);
  }
  std::vector<NightVerdict> out(series.size());
  std::vector<std::vector<double>> levels;
  std::vector<std::vector<ChangePoint>> steps;  // empty where a level is not finite
  for (const auto& s : series) {
    levels.push_back(levels_of(s));
    steps.push_back(change_points(levels.back(), rule.change_points));
  }
  // A change point at the last history night puts that night and tonight on
  // a new level: tonight is judged against it only if that night was flagged.
  const std::vector<bool> trust = fresh_trust(series, steps, rule, check_fresh, &judge);
  std::vector<SeriesFit> fits;
  std::vector<double> s2(series.size(), kNaN), d(series.size(), 0);
  for (size_t i = 0; i < series.size(); ++i) {
    fits.push_back(fit(series[i], std::move(levels[i]), rule, out[i], steps[i], trust[i]));
    if (fits[i].judged) {
      s2[i] = fits[i].ss / fits[i].df;
      d[i] = fits[i].df;
    }
  }
  // Each series' spread, moderated toward what the report's series share.
  const VariancePrior prior = fit_variance_prior(s2, d, rule.heterogeneity_alpha);
  std::vector<double> p_worse(series.size(), kNaN), p_better(series.size(), kNaN);
  std::vector<SeriesNoise> noise(series.size());
  for (size_t i = 0; i < series.size(); ++i)
    if (fits[i].judged) {
      noise[i] = test_series(fits[i], series[i], prior, static_cast<int>(i), out[i]);
      p_worse[i] = out[i].p_worse;
      p_better[i] = out[i].p_better;
    }
  const auto worse = holm_reject(p_worse, rule.family_alpha);
  const auto better = holm_reject(p_better, rule.family_alpha);
  for (size_t i = 0; i < series.size(); ++i) {
    NightVerdict& v = out[i];
    if (fits[i].judged) {
      decide_night(v, series[i], worse[i], better[i], rule);
      if (v.outcome == Verdict::cannot_tell) plan_settling(v, fits[i], noise[i], rule);
    }
    finish(v, fits[i], clean[i], original[i].nights.size());
  }
  return out;
}

}  // namespace

std::vector<NightVerdict> judge_nights(const std::vector<NightSeries>& series, const NightlyRule& rule) {
  return judge(series, rule, true);
}

}  // namespace ftb::stats
