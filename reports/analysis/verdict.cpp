#include "reports/analysis/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ftb::stats {

namespace {

// The interval (log) lies wholly beyond +-effect: no change inside it.
bool entirely_beyond(double low, double high, double effect) {
  return low >= std::log1p(effect) || high <= std::log1p(-effect);
}

// The estimate (log) at or beyond +-min_effect: ratio >= 1 + m or <= 1 - m,
// taken in logs so that an estimate of log1p(m) is exactly at the bound.
bool beyond_effect(double estimate, double min_effect) {
  return estimate >= std::log1p(min_effect) || estimate <= std::log1p(-min_effect);
}

Reason reason_for(const Change& c, const Judgement& j) {
  Reason r;
  r.estimate = std::expm1(c.estimate);
  r.low = std::expm1(c.low);
  r.high = std::expm1(c.high);
  r.level = c.level;
  r.min_effect = j.min_effect;
  r.same_within = std::max(j.min_effect, j.min_detectable_change);
  return r;
}

}  // namespace

Decision decide(const Change& c, const Judgement& j) {
  Decision d;
  d.reason = reason_for(c, j);
  Reason& r = d.reason;
  if (!std::isfinite(c.estimate) || !std::isfinite(c.low) || !std::isfinite(c.high)) {
    r.ruling = Ruling::no_noise_estimate;
    return d;
  }
  if (j.rejected && beyond_effect(c.estimate, j.min_effect)) {
    const bool up = c.estimate > 0;
    const bool good = up == (j.direction == Direction::higher_is_better);
    d.verdict = good ? Verdict::better : Verdict::worse;
    r.ruling = Ruling::called;
    return d;
  }
  r.settle = resolve(c.low, c.high, c.a, c.b, r.same_within, c.level);
  if (r.settle.resolved) {
    d.verdict = Verdict::same;
    r.ruling = Ruling::settled;
    return d;
  }
  d.verdict = Verdict::cannot_tell;
  r.ruling = entirely_beyond(c.low, c.high, r.same_within) ? Ruling::beyond_not_called : Ruling::interval_reaches;
  return d;
}

std::string explain(const Reason& r) {
  char buf[300];
  const double pct = 100 * r.level, lo = 100 * r.low, hi = 100 * r.high, w = 100 * r.same_within;
  switch (r.ruling) {
    case Ruling::no_noise_estimate: return "nothing estimated the run-to-run noise";
    case Ruling::called:
      std::snprintf(buf, sizeof buf, "the family's test called it; the change %+.1f %% lies at or beyond +-%.3g %%",
                    100 * r.estimate, 100 * r.min_effect);
      return buf;
    case Ruling::settled:
      std::snprintf(buf, sizeof buf, "the %.3g %% interval of the change, %+.1f %% to %+.1f %%, lies inside +-%.3g %%",
                    pct, lo, hi, w);
      return buf;
    case Ruling::interval_reaches:
      std::snprintf(buf, sizeof buf,
                    "the %.3g %% interval of the change, %+.1f %% to %+.1f %%, still includes changes beyond +-%.3g %%",
                    pct, lo, hi, w);
      return buf;
    case Ruling::beyond_not_called:
      std::snprintf(buf, sizeof buf,
                    "the %.3g %% interval of the change, %+.1f %% to %+.1f %%, lies entirely beyond %+.3g %%, but the "
                    "test at the family's level did not call it",
                    pct, lo, hi, r.estimate < 0 ? -w : w);
      return buf;
  }
  return "";
}

bool interval_too_wide(Ruling r) { return r == Ruling::interval_reaches || r == Ruling::beyond_not_called; }

std::string cannot_tell_reason(Ruling r) {
  if (r == Ruling::no_noise_estimate) return "no noise estimate";
  return interval_too_wide(r) ? "interval too wide" : "";
}

}  // namespace ftb::stats
