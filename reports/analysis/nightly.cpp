#include "reports/analysis/nightly.h"

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
  int reference_start = 0;     // first history night of tonight's reference level
  int reference_end = 0;       // one past its last
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

// `trust_fresh`: whether a change point at the last history night (a new
// level of that night and tonight only) is a step to judge tonight against;
// judge_nights decides it by whether that night was itself flagged.
SeriesFit fit(const NightSeries& s, std::vector<double> levels, const NightlyRule& rule, NightVerdict& v,
              std::vector<ChangePoint> steps, bool trust_fresh) {
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
  // Segments over the history nights, from the change points.
  std::vector<int> bounds = {0};
  for (const auto& c : steps)  // the fresh one too: last night's level is its own
    if (c.index < T) bounds.push_back(c.index);
  bounds.push_back(T);
  int segments = 0;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const std::vector<double> seg(f.levels.begin() + bounds[k], f.levels.begin() + bounds[k + 1]);
    if (seg.empty()) continue;
    ++segments;
    const double m = mean(seg);
    for (double x : seg) f.ss += (x - m) * (x - m);
  }
  f.df = T - segments;
  f.reference_start = bounds[bounds.size() - 2];
  f.reference_end = T;
  if (untrusted_fresh && bounds.size() >= 3) {
    f.reference_start = bounds[bounds.size() - 3];
    f.reference_end = T - 1;
  }
  // From the history only: a noisy night must not widen its own yardstick.
  f.within = within_run_noise(s.nights);
  double hist_n = 0;
  for (const auto& n : s.nights) hist_n += static_cast<double>(n.size());
  hist_n /= T;
  f.within_part = std::isfinite(f.within.var) ? kappa_over_n(hist_n) * f.within.var : 0;
  f.tonight_n = {static_cast<double>(s.tonight.size())};
  for (const auto& r : s.reruns) f.tonight_n.push_back(static_cast<double>(r.size()));
  if (f.df < 1) {
    v.note = "no spread to estimate: every history night is its own level";
    return f;
  }
  f.judged = true;
  return f;
}

}  // namespace

std::string describe(const NightlyRule& r) {
  char buf[1200];
  std::snprintf(buf, sizeof buf,
                "each night is one sample (the median of its repeats, log scale); tonight is judged against the "
                "nights since the series' last change point (E-divisive means: the best split, kept where a Student "
                "t-test of its sides gives p < %.3g, at least %d nights a side; flat series show a false step in "
                "0.57 %% of 8-night and 1.25 %% of 20-night histories) with a one-sided t-test whose noise has a "
                "within-run part (per scenario, from every repeat) and a between-night part: each scenario's own spread of its nights, moderated toward what the "
                "report's scenarios share by empirical Bayes (a scenario improbably noisier than the others, "
                "p < %.3g, keeps its own); a regression needs Holm's procedure over every "
                "scenario of the report at %.3g (the whole report's false-alarm rate) and a change beyond %.3g %%; "
                "at least %d nights of history",
                r.change_points.max_p, r.change_points.min_segment, r.heterogeneity_alpha, r.family_alpha,
                100 * r.min_effect, r.min_nights);
  return buf;
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
  c.series.tonight = s.tonight;
  c.series.reruns = s.reruns;
  c.series.direction = s.direction;
  c.series.noise = s.noise;
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

std::vector<NightVerdict> judge(const std::vector<NightSeries>& original, const NightlyRule& rule, bool check_fresh) {
  std::vector<CleanSeries> clean;
  for (const auto& s : original) clean.push_back(without_empty_nights(s));
  std::vector<NightSeries> series;
  for (const auto& c : clean) series.push_back(c.series);
  std::vector<NightVerdict> out(series.size());
  // A change point at the last history night puts that night and tonight on a
  // new level. If that night was flagged when it ran (the step was seen, and
  // accepted by whoever added it), tonight is judged against the new level;
  // if it was not (it stayed under the bar), the step is tonight's too and
  // tonight is judged against the level before it.
  std::vector<std::vector<double>> levels;
  std::vector<std::vector<ChangePoint>> steps;  // empty where a level is not finite
  std::vector<bool> trust(series.size(), false);
  bool any_fresh = false;
  for (const auto& s : series) {
    levels.push_back(levels_of(s));
    steps.push_back(change_points(levels.back(), rule.change_points));
    const int T = static_cast<int>(s.nights.size());
    any_fresh = any_fresh || (!steps.back().empty() && steps.back().back().index == T - 1);
  }
  if (any_fresh && check_fresh) {
    std::vector<NightSeries> before;
    for (const auto& s : series) {
      NightSeries b;
      b.direction = s.direction;
      b.noise = s.noise;
      if (!s.nights.empty()) {
        b.nights.assign(s.nights.begin(), s.nights.end() - 1);
        b.tonight = s.nights.back();
      }
      before.push_back(std::move(b));
    }
    const auto then = judge(before, rule, false);
    for (size_t i = 0; i < series.size(); ++i)
      trust[i] = then[i].outcome == NightOutcome::regressed || then[i].outcome == NightOutcome::improved;
  }
  std::vector<SeriesFit> fits;
  for (size_t i = 0; i < series.size(); ++i) fits.push_back(fit(series[i], std::move(levels[i]), rule, out[i], steps[i], trust[i]));

  // Each series' spread of its history levels (around their segments'
  // means), moderated toward what the report's series share.
  std::vector<double> s2(series.size(), kNaN), d(series.size(), 0);
  for (size_t i = 0; i < series.size(); ++i)
    if (fits[i].judged) {
      s2[i] = fits[i].ss / fits[i].df;
      d[i] = fits[i].df;
    }
  const VariancePrior prior = fit_variance_prior(s2, d, rule.heterogeneity_alpha);

  std::vector<double> p_worse(series.size(), kNaN), p_better(series.size(), kNaN);
  for (size_t i = 0; i < series.size(); ++i) {
    const SeriesFit& f = fits[i];
    NightVerdict& v = out[i];
    if (!f.judged) continue;
    const double R = f.reference_end - f.reference_start;
    v.reference_nights = static_cast<int>(R);
    v.reference_level =
        mean(std::vector<double>(f.levels.begin() + f.reference_start, f.levels.begin() + f.reference_end));
    const double var_w = std::isfinite(f.within.var) ? f.within.var : 0;
    const double wh = f.within_part;
    const ModeratedVariance mv = moderate(prior, static_cast<int>(i), s2[i], d[i]);
    // A night's level varies at least as much as its repeats make it (the
    // within part, from many repeats): a floor when few nights look calm.
    const double level_var = std::max(mv.var, wh);
    // Var(tonight - reference): the reference mean's level_var / R, plus
    // tonight's mean of K independent runs, each a level's variance with its
    // own repeats' within part: sum_k (level_var - wh + wt_k) / K^2 (K = 1:
    // level_var (1 + 1/R) + wt - wh).
    const double K = static_cast<double>(f.tonight_n.size());
    double var_tonight = 0;
    for (double n : f.tonight_n) var_tonight += level_var - wh + kappa_over_n(n) * var_w;
    var_tonight /= K * K;
    double var = level_var / R + var_tonight;
    v.tonight_runs = static_cast<int>(K);
    double df = mv.df;
    v.own_spread = mv.own;
    // A calibrated run-to-run noise joins the estimate, weighted by its
    // degrees of freedom, unless this series has just shown itself an
    // outlier among the report's (then its own spread stands).
    if (const auto& k = series[i].noise; k && k->run_sd > 0 && k->df > 0 && !v.own_spread) {
      const double known = k->run_sd * k->run_sd * (1 / K + 1 / R);
      if (std::isfinite(k->df)) {
        var = (df * var + k->df * known) / (df + k->df);
        df += k->df;
      } else {
        var = known;
        df = k->df;
      }
    }
    v.within_sd = std::sqrt(var_w);
    v.between_sd = std::sqrt(std::max(0.0, level_var - wh));
    v.se = std::sqrt(var);
    v.df = df;
    const double diff = f.tonight - v.reference_level;
    v.change = std::expm1(diff);
    if (!(v.se > 0) || !(df > 0)) {
      p_worse[i] = p_better[i] = 1;
    } else {
      const double t = diff / v.se;
      const bool higher = series[i].direction == Direction::higher_is_better;
      p_worse[i] = higher ? t_cdf(t, df) : t_cdf(-t, df);
      p_better[i] = higher ? t_cdf(-t, df) : t_cdf(t, df);
    }
    v.p_worse = p_worse[i];
    v.p_better = p_better[i];
  }
  const auto worse = holm_reject(p_worse, rule.family_alpha);
  const auto better = holm_reject(p_better, rule.family_alpha);
  for (size_t i = 0; i < series.size(); ++i) {
    NightVerdict& v = out[i];
    if (fits[i].judged) {
      const double bad = series[i].direction == Direction::higher_is_better ? -v.change : v.change;
      v.outcome = worse[i] && bad > rule.min_effect     ? NightOutcome::regressed
                  : better[i] && -bad > rule.min_effect ? NightOutcome::improved
                                                        : NightOutcome::same;
    }
    // Back to the caller's night numbers.
    const auto& kept = clean[i].kept;
    if (fits[i].judged)
      for (int k = fits[i].reference_start; k < fits[i].reference_end; ++k)
        v.reference.push_back(kept[static_cast<size_t>(k)]);
    v.history_nights = static_cast<int>(original[i].nights.size());
    for (auto& c : v.steps)
      c.index = c.index < static_cast<int>(kept.size()) ? kept[static_cast<size_t>(c.index)] : v.history_nights;
    v.left_out = clean[i].left;
    if (!clean[i].note.empty()) v.note = v.note.empty() ? clean[i].note : v.note + "; " + clean[i].note;
  }
  return out;
}

}  // namespace

std::vector<NightVerdict> judge_nights(const std::vector<NightSeries>& series, const NightlyRule& rule) {
  return judge(series, rule, true);
}

}  // namespace ftb::stats
