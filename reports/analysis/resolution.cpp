#include "reports/analysis/resolution.h"

#include <algorithm>
#include <cmath>

#include "reports/analysis/two_level.h"

namespace ftb::stats {
namespace {

// The half-width (log) of the `level` t interval with `more_a`, `more_b`
// further runs: the measured variances over the planned run counts, df
// Satterthwaite's over the two sides (each side's df grows by its further runs).
double planned_half_width(const SideNoise& a, const SideNoise& b, int more_a, int more_b, double level) {
  const double ta = a.var / (a.runs + more_a), tb = b.var / (b.runs + more_b);
  const double dfa = a.df + more_a, dfb = b.df + more_b;
  double denom = 0;
  if (std::isfinite(dfa) && ta > 0) denom += ta * ta / dfa;
  if (std::isfinite(dfb) && tb > 0) denom += tb * tb / dfb;
  const double df = denom > 0 ? (ta + tb) * (ta + tb) / denom : std::numeric_limits<double>::infinity();
  return t_quantile(1 - (1 - level) / 2, df) * std::sqrt(ta + tb);
}

bool plannable(const SideNoise& s) { return std::isfinite(s.var) && s.var >= 0 && s.runs >= 1 && s.df > 0; }

}  // namespace

bool within_effect(double low, double high, double min_effect) {
  return low > std::log1p(-min_effect) && high < std::log1p(min_effect);
}

double settling_half_width(double diff, double min_effect) {
  const double lo = std::log1p(-min_effect), hi = std::log1p(min_effect);
  if (!std::isfinite(diff)) return hi;
  return std::max(0.25 * hi, std::min(std::abs(diff - lo), std::abs(hi - diff)));
}

Resolution resolve(double low, double high, const SideNoise& a, const SideNoise& b, double min_effect, double level,
                   int max_more) {
  Resolution r;
  if (std::isfinite(low) && std::isfinite(high)) {
    r.half_width = (high - low) / 2;
    r.resolved = within_effect(low, high, min_effect);
  }
  if (r.resolved || !plannable(a) || !plannable(b)) return r;
  double target = settling_half_width((low + high) / 2, min_effect);
  // Runs as they are already that narrow, and still unresolved (an interval
  // wholly beyond the effect that the rule's stricter family level did not
  // call): half as wide, about what Holm's level over a few rows asks of a
  // 95 % interval.
  double hw = planned_half_width(a, b, 0, 0, level);
  if (hw < target) target = 0.5 * std::min(hw, std::isfinite(r.half_width) ? r.half_width : hw);
  // Greedy: each further run goes where it narrows the interval most. The
  // variance terms are convex in the run counts, so this spends the fewest
  // runs in all (up to the df's small say).
  while (!(hw < target) && r.more_a + r.more_b < max_more) {
    const double with_a = planned_half_width(a, b, r.more_a + 1, r.more_b, level);
    const double with_b = planned_half_width(a, b, r.more_a, r.more_b + 1, level);
    if (with_a <= with_b) {
      ++r.more_a;
      hw = with_a;
    } else {
      ++r.more_b;
      hw = with_b;
    }
  }
  r.reachable = hw < target;
  r.planned_half_width = hw;
  return r;
}

std::string settle_text(const Resolution& r, const std::string& a_name, const std::string& b_name) {
  if (r.resolved) return "";
  if (!r.reachable)
    return std::isfinite(r.planned_half_width)
               ? "more than " + std::to_string(r.more_a + r.more_b) + " further runs (modelled)"
               : "runs that measure the run-to-run noise";
  auto part = [](int n, const std::string& name) {
    std::string what = name;  // "runs of A" -> "run of A" for one
    if (const size_t at = what.find("runs"); n == 1 && at != std::string::npos) what.erase(at + 3, 1);
    return std::to_string(n) + " more " + what;
  };
  std::string out;
  if (r.more_a > 0) out = part(r.more_a, a_name);
  if (r.more_b > 0) out += (out.empty() ? "" : " and ") + part(r.more_b, b_name);
  return (out.empty() ? "the runs as they are" : out) + " (modelled from the measured noise)";
}

}  // namespace ftb::stats
