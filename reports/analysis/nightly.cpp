#include "reports/analysis/nightly.h"

#include <boost/math/distributions/fisher_f.hpp>

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
  double tonight_n = 1;
};

double f_upper_p(double f, double df1, double df2) {
  if (!(df1 > 0) || !(df2 > 0) || !std::isfinite(f)) return 1;
  return boost::math::cdf(boost::math::complement(boost::math::fisher_f_distribution<double>(df1, df2), f));
}

double kappa_over_n(double n) {
  const int k = std::max(1, static_cast<int>(std::lround(n)));
  return median_variance_factor(k) / k;
}

// The levels of the history's nights and, last, tonight's.
std::vector<double> levels_of(const NightSeries& s) {
  std::vector<double> all;
  for (const auto& n : s.nights) all.push_back(run_level(n));
  all.push_back(run_level(s.tonight));
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
  for (double l : f.levels)
    if (!std::isfinite(l)) {
      v.note = "a night with a value <= 0 in the history";
      return f;
    }
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
  f.tonight_n = static_cast<double>(s.tonight.size());
  if (f.df < 1) {
    v.note = "no spread to estimate: every history night is its own level";
    return f;
  }
  f.judged = true;
  return f;
}

}  // namespace

std::string describe(const NightlyRule& r) {
  char buf[900];
  std::snprintf(buf, sizeof buf,
                "each night is one sample (the median of its repeats, log scale); tonight is judged against the "
                "nights since the series' last change point (E-divisive means, Student t p < %.3g, at least %d nights "
                "a side) with a one-sided t-test whose noise has a within-run part (per scenario, from every repeat) "
                "and a between-night part (pooled across the report's scenarios; a scenario significantly noisier "
                "than the pool, F-test p < %.3g, uses its own); a regression needs Holm's procedure over every "
                "scenario of the report at %.3g (the whole report's false-alarm rate) and a change beyond %.3g %%; "
                "at least %d nights of history",
                r.change_points.max_p, r.change_points.min_segment, r.heterogeneity_alpha, r.family_alpha,
                100 * r.min_effect, r.min_nights);
  return buf;
}

namespace {

std::vector<NightVerdict> judge(const std::vector<NightSeries>& series, const NightlyRule& rule, bool check_fresh) {
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

  // The between-night variance, pooled over the series (df-weighted).
  double num = 0, df_b = 0;
  for (const auto& f : fits) {
    if (!f.judged) continue;
    num += f.df * (f.ss / f.df - f.within_part);
    df_b += f.df;
  }
  const double between = df_b > 0 ? std::max(0.0, num / df_b) : 0;

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
    const double wt = kappa_over_n(f.tonight_n) * var_w, wh = f.within_part;
    // Var(tonight - reference) = between (1 + 1/R) + within parts, each with its df.
    const double cb = between * (1 + 1 / R), cw = wt + wh / R;
    double var = cb + cw;
    double df = var * var / ((df_b > 0 ? cb * cb / df_b : 0) + (f.within.df > 0 ? cw * cw / f.within.df : 0) + 1e-300);
    const double own = f.ss / f.df;
    const double model = between + wh;
    if (model > 0 && f_upper_p(own / model, f.df, df_b) < rule.heterogeneity_alpha) {
      v.own_spread = true;
      var = own * (1 + 1 / R) + (wt - wh);  // tonight's repeats may differ in number from the history's
      var = std::max(var, own / R);
      df = f.df;
    }
    // A calibrated run-to-run noise joins the model's, unless this series has
    // just shown itself noisier than the model (then its own spread stands).
    if (const auto& k = series[i].noise; k && k->run_sd > 0 && k->df > 0 && !v.own_spread) {
      const double known = k->run_sd * k->run_sd * (1 + 1 / R);
      if (std::isfinite(k->df)) {
        var = (df * var + k->df * known) / (df + k->df);
        df += k->df;
      } else {
        var = known;
        df = k->df;
      }
    }
    v.within_sd = std::sqrt(var_w);
    v.between_sd = std::sqrt(v.own_spread ? std::max(0.0, own - wh) : between);
    v.se = std::sqrt(var);
    v.df = df;
    const double diff = f.tonight - v.reference_level;
    v.change = std::expm1(diff);
    if (!(v.se > 0)) {
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
    if (!fits[i].judged) continue;
    const double bad = series[i].direction == Direction::higher_is_better ? -v.change : v.change;
    v.outcome = worse[i] && bad > rule.min_effect     ? NightOutcome::regressed
                : better[i] && -bad > rule.min_effect ? NightOutcome::improved
                                                      : NightOutcome::same;
  }
  return out;
}

}  // namespace

std::vector<NightVerdict> judge_nights(const std::vector<NightSeries>& series, const NightlyRule& rule) {
  return judge(series, rule, true);
}

}  // namespace ftb::stats
