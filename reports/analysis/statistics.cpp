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

// P(U = u), u = 0 .. n m: the Mann-Whitney U of samples of n and m under no
// shift. Its counts are the coefficients of the Gaussian binomial
// [n + m choose n]_q = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i), built one
// factor at a time and scaled by i / (m + i) at each step so they stay
// probabilities (the count, C(n + m, n), overflows a double near n = m = 500).
std::vector<double> mann_whitney_pmf(int n, int m) {
  if (n > m) std::swap(n, m);  // the same distribution in fewer steps
  const auto un = static_cast<size_t>(n), um = static_cast<size_t>(m);
  std::vector<double> c(un * um + un + 1, 0.0);  // room for the product before the division
  c[0] = 1;
  for (size_t i = 1; i <= un; ++i) {
    const size_t top = (i - 1) * um + um + i;  // degree after multiplying by 1 - q^(m+i)
    for (size_t u = top; u >= um + i; --u) c[u] -= c[u - um - i];
    for (size_t u = i; u <= top; ++u) c[u] += c[u - i];  // dividing by 1 - q^i: a running sum
    for (size_t u = i * um + 1; u <= top; ++u) c[u] = 0;  // exactly 0 (rounding leaves crumbs)
    const double scale = static_cast<double>(i) / static_cast<double>(um + i);
    for (size_t u = 0; u <= i * um; ++u) c[u] = std::max(0.0, c[u] * scale);
  }
  c.resize(un * um + 1);
  return c;
}

// 1 - 2 P(U <= k - 1) from U's distribution.
double shift_coverage(const std::vector<double>& pmf, int k) {
  double below = 0;
  for (int u = 0; u < k; ++u) below += pmf[static_cast<size_t>(u)];
  return std::max(0.0, 1 - 2 * below);
}

// The largest k, so the narrowest [x_(k), x_(count + 1 - k)] of sorted
// values, whose coverage(k) still reaches `level`; 1 ([min, max]) when none
// does. Medians and the pairwise-ratio shift interval choose alike.
template <class Coverage>
int narrowest_k(int count, double level, Coverage coverage) {
  int k = 1;
  while (2 * (k + 1) <= count + 1 && coverage(k + 1) >= level) ++k;
  return k;
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
    case IntervalMethod::pairwise_ratios: return "order statistics of the pairwise ratios (Mann-Whitney)";
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
  const int k = narrowest_k(r.n, level, [&](int j) { return order_statistic_coverage(r.n, j); });
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
  Interval r;
  r.estimate = est;
  r.n = static_cast<int>(std::min(num.size(), den.size()));
  std::vector<double> ratios;
  for (double x : num)
    for (double y : den) ratios.push_back(x / y);
  std::sort(ratios.begin(), ratios.end());
  r.min = ratios.front();
  r.max = ratios.back();
  if (num.size() < 2 || den.size() < 2) {  // a side of one value has no spread of its own: no interval
    r.low = r.high = est;
    return r;
  }
  const int pairs = static_cast<int>(ratios.size());
  const auto pmf = mann_whitney_pmf(static_cast<int>(num.size()), static_cast<int>(den.size()));
  const int k = narrowest_k(pairs, level, [&](int j) { return shift_coverage(pmf, j); });
  r.low = ratios[static_cast<size_t>(k - 1)];
  r.high = ratios[static_cast<size_t>(pairs - k)];
  r.coverage = shift_coverage(pmf, k);
  r.method = IntervalMethod::pairwise_ratios;
  return r;
}

double pairwise_ratio_coverage(int n, int m, int k) {
  if (n < 1 || m < 1 || k < 1 || 2 * k > n * m + 1) return kNaN;
  return shift_coverage(mann_whitney_pmf(n, m), k);
}

double normal_quantile(double p) { return t_quantile(p, std::numeric_limits<double>::infinity()); }

}  // namespace ftb::stats
