#include "reports/analysis/statistics.h"

#include "core/measure/records.h"
#include "reports/analysis/two_level.h"

#include <algorithm>
#include <cmath>

namespace ftb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double sorted_quantile(const std::vector<double>& s, double q) {
  if (s.empty()) return kNaN;
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

Interval empty_interval() {
  Interval r;
  r.estimate = r.low = r.high = r.min = r.max = kNaN;
  return r;
}

}  // namespace

std::string to_string(IntervalMethod m) {
  switch (m) {
    case IntervalMethod::none: return "none";
    case IntervalMethod::order_statistics: return "order statistics";
    case IntervalMethod::paired_order_statistics: return "order statistics of per-round ratios";
    case IntervalMethod::order_statistics_product: return "order statistics of each median, combined";
    case IntervalMethod::t_over_runs: return "t over runs";
    case IntervalMethod::t_run_noise: return "t with the run-to-run sd of a calibrate file";
  }
  return "?";
}

double quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  return sorted_quantile(x, q);
}

double median(std::vector<double> x) { return ftb::median(std::move(x)); }  // the one median (core/measure/records.h)

double order_statistic_coverage(int n, int k) {
  if (n < 1 || k < 1 || 2 * k > n + 1) return kNaN;
  // P(Bin(n, 1/2) <= k - 1), summed in logs of binomial coefficients.
  double below = 0;
  for (int i = 0; i < k; ++i)
    below += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::max(0.0, 1 - 2 * below);
}

Interval median_interval(const std::vector<double>& x, double level) {
  if (x.empty()) return empty_interval();
  std::vector<double> s = x;
  std::sort(s.begin(), s.end());
  Interval r;
  r.n = static_cast<int>(s.size());
  r.estimate = sorted_quantile(s, 0.5);
  r.min = s.front();
  r.max = s.back();
  if (r.n < 2) {
    r.low = r.high = r.estimate;
    return r;
  }
  // The largest k (narrowest interval) whose coverage still reaches `level`;
  // k = 1 ([min, max]) when none does.
  int k = 1;
  while (2 * (k + 1) <= r.n + 1 && order_statistic_coverage(r.n, k + 1) >= level) ++k;
  r.low = s[static_cast<size_t>(k - 1)];
  r.high = s[static_cast<size_t>(r.n - k)];
  r.coverage = order_statistic_coverage(r.n, k);
  r.method = IntervalMethod::order_statistics;
  return r;
}

Interval ratio_interval(const std::vector<double>& num, const std::vector<double>& den, bool paired, double level) {
  if (num.empty() || den.empty()) return empty_interval();
  const double est = median(num) / median(den);
  if (paired && num.size() == den.size()) {
    std::vector<double> ratios;
    for (size_t k = 0; k < num.size(); ++k) ratios.push_back(num[k] / den[k]);
    Interval r = median_interval(ratios, level);
    r.estimate = est;
    if (r.n >= 2) r.method = IntervalMethod::paired_order_statistics;
    else r.low = r.high = est;
    return r;
  }
  // Each median's interval at the square root of the level, so that the
  // product reaches it where the sizes allow.
  const Interval a = median_interval(num, std::sqrt(level)), b = median_interval(den, std::sqrt(level));
  Interval r;
  r.estimate = est;
  r.n = static_cast<int>(std::min(num.size(), den.size()));
  r.min = a.min / b.max;
  r.max = a.max / b.min;
  if (a.n < 2 || b.n < 2) {  // a side of one value has no interval: neither has the ratio
    r.low = r.high = est;
    return r;
  }
  r.low = a.low / b.high;
  r.high = a.high / b.low;
  r.coverage = a.coverage * b.coverage;
  r.method = IntervalMethod::order_statistics_product;
  return r;
}

double normal_quantile(double p) { return t_quantile(p, std::numeric_limits<double>::infinity()); }

}  // namespace ftb::stats
