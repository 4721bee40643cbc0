#include "reports/statistics.h"

#include "core/train/records.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

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

double sorted_median(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return sorted_quantile(v, 0.5);
}

// Resamples `x` (with replacement) into `out`.
void resample(const std::vector<double>& x, std::mt19937_64& rng, std::vector<double>& out) {
  std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
  out.resize(x.size());
  for (auto& v : out) v = x[pick(rng)];
}

Interval from_estimates(double estimate, std::vector<double>& boot, double level) {
  Interval r;
  r.estimate = estimate;
  std::sort(boot.begin(), boot.end());
  r.low = sorted_quantile(boot, (1 - level) / 2);
  r.high = sorted_quantile(boot, 1 - (1 - level) / 2);
  return r;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// counts[u] = number of orderings of n a's and m b's with U = u (no ties),
// by f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u).
std::vector<double> u_distribution(int n, int m) {
  // table[i][j] is the distribution for (i, j), built up row by row.
  std::vector<std::vector<std::vector<double>>> t(n + 1, std::vector<std::vector<double>>(m + 1));
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= m; ++j) {
      auto& d = t[i][j];
      d.assign(static_cast<size_t>(i * j + 1), 0.0);
      if (i == 0 || j == 0) {
        d[0] = 1;
        continue;
      }
      // the largest value is an a (it beats all j b's) or a b
      const auto& with_a = t[i - 1][j];
      for (size_t u = 0; u < with_a.size(); ++u) d[u + static_cast<size_t>(j)] += with_a[u];
      const auto& with_b = t[i][j - 1];
      for (size_t u = 0; u < with_b.size(); ++u) d[u] += with_b[u];
    }
  return t[n][m];
}

}  // namespace

double quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  return sorted_quantile(x, q);
}

double median(std::vector<double> x) { return ftb::median(std::move(x)); }  // the one median (core/train/records.h)

Interval median_interval(const std::vector<double>& x, uint64_t seed, double level, int resamples) {
  Interval r;
  r.n = static_cast<int>(x.size());
  if (x.empty()) {
    r.estimate = r.low = r.high = r.min = r.max = kNaN;
    return r;
  }
  std::vector<double> s = x;
  const double est = sorted_median(s);
  std::vector<double> boot;
  if (x.size() > 1) {
    std::mt19937_64 rng(seed);
    std::vector<double> buf;
    boot.reserve(static_cast<size_t>(resamples));
    for (int i = 0; i < resamples; ++i) {
      resample(x, rng, buf);
      boot.push_back(sorted_median(buf));
    }
  } else {
    boot = {est};
  }
  Interval out = from_estimates(est, boot, level);
  out.n = r.n;
  out.min = s.front();
  out.max = s.back();
  return out;
}

Interval ratio_interval(const std::vector<double>& num, const std::vector<double>& den, bool paired, uint64_t seed,
                        double level, int resamples) {
  Interval r;
  r.n = static_cast<int>(std::min(num.size(), den.size()));
  if (num.empty() || den.empty()) {
    r.estimate = r.low = r.high = r.min = r.max = kNaN;
    return r;
  }
  const double est = median(num) / median(den);
  std::vector<double> ratios;  // per-pair ratios for min/max, when paired
  const bool pairs = paired && num.size() == den.size();
  std::vector<double> boot = ratio_replicates(num, den, paired, seed, resamples);
  if (boot.empty()) boot = {est};
  Interval out = from_estimates(est, boot, level);
  out.n = r.n;
  if (pairs) {
    for (size_t k = 0; k < num.size(); ++k) ratios.push_back(num[k] / den[k]);
  } else {
    ratios = {*std::min_element(num.begin(), num.end()) / *std::max_element(den.begin(), den.end()),
              *std::max_element(num.begin(), num.end()) / *std::min_element(den.begin(), den.end())};
  }
  out.min = *std::min_element(ratios.begin(), ratios.end());
  out.max = *std::max_element(ratios.begin(), ratios.end());
  return out;
}

std::vector<double> ratio_replicates(const std::vector<double>& num, const std::vector<double>& den, bool paired,
                                     uint64_t seed, int resamples) {
  std::vector<double> boot;
  if (num.empty() || den.empty() || (num.size() == 1 && den.size() == 1)) return boot;
  const bool pairs = paired && num.size() == den.size();
  std::mt19937_64 rng(seed);
  std::vector<double> a, b;
  boot.reserve(static_cast<size_t>(resamples));
  std::uniform_int_distribution<size_t> pick(0, num.size() - 1);
  for (int i = 0; i < resamples; ++i) {
    if (pairs) {
      a.resize(num.size());
      b.resize(den.size());
      for (size_t k = 0; k < num.size(); ++k) {
        const size_t j = pick(rng);
        a[k] = num[j];
        b[k] = den[j];
      }
    } else {
      resample(num, rng, a);
      resample(den, rng, b);
    }
    boot.push_back(sorted_median(a) / sorted_median(b));
  }
  return boot;
}

Interval geomean_interval(const std::vector<RatioSamples>& ratios, uint64_t seed, double level, int resamples) {
  Interval out;
  out.n = static_cast<int>(ratios.size());
  if (ratios.empty()) {
    out.estimate = out.low = out.high = out.min = out.max = kNaN;
    return out;
  }
  double sum_log = 0;
  out.min = std::numeric_limits<double>::infinity();
  out.max = -out.min;
  // One replicate set per ratio (its own seed); replicate i of the geometric
  // mean combines replicate i of every ratio (independent runs: unpaired).
  std::vector<double> log_sum(static_cast<size_t>(resamples), 0.0);
  bool any_spread = false;
  for (size_t k = 0; k < ratios.size(); ++k) {
    const double est = median(ratios[k].num) / median(ratios[k].den);
    sum_log += std::log(est);
    out.min = std::min(out.min, est);
    out.max = std::max(out.max, est);
    std::vector<double> boot = ratio_replicates(ratios[k].num, ratios[k].den, false, seed + k, resamples);
    if (!boot.empty()) any_spread = true;
    for (size_t i = 0; i < log_sum.size(); ++i) log_sum[i] += std::log(boot.empty() ? est : boot[i]);
  }
  const double n = static_cast<double>(ratios.size());
  const double est = std::exp(sum_log / n);
  std::vector<double> boot;
  if (any_spread) {
    for (double s : log_sum) boot.push_back(std::exp(s / n));
  } else {
    boot = {est};
  }
  Interval r = from_estimates(est, boot, level);
  r.n = out.n;
  r.min = out.min;
  r.max = out.max;
  return r;
}

RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  RankTest r;
  const auto n = static_cast<double>(a.size()), m = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return r;
  bool ties = false;
  for (double x : a)
    for (double y : b) {
      if (x > y) r.u += 1;
      else if (x == y) {
        r.u += 0.5;
        ties = true;
      }
    }
  // Ties within the pooled sample (for the variance correction).
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  double tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    const double t = static_cast<double>(j - i);
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    i = j;
  }
  if (!ties && n * m <= 10000) {
    r.exact = true;
    const auto dist = u_distribution(static_cast<int>(a.size()), static_cast<int>(b.size()));
    double total = 0;
    for (double c : dist) total += c;
    const auto u = static_cast<size_t>(r.u);
    double le = 0, ge = 0;
    for (size_t k = 0; k < dist.size(); ++k) {
      if (k <= u) le += dist[k];
      if (k >= u) ge += dist[k];
    }
    r.p_less = le / total;
    r.p_greater = ge / total;
  } else {
    const double mean = n * m / 2;
    const double N = n + m;
    const double var = n * m / 12 * ((N + 1) - tie_term / (N * (N - 1)));
    const double sd = std::sqrt(std::max(var, 1e-300));
    r.p_less = normal_cdf((r.u - mean + 0.5) / sd);
    r.p_greater = 1 - normal_cdf((r.u - mean - 0.5) / sd);
  }
  r.p_two_sided = std::min(1.0, 2 * std::min(r.p_less, r.p_greater));
  return r;
}

double robust_cv(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double med = median(x);
  std::vector<double> dev;
  for (double v : x) dev.push_back(std::abs(v - med));
  return med != 0 ? 1.4826 * median(dev) / std::abs(med) : 0;
}

NoiseTest z_vs_history(const std::vector<double>& history, const std::vector<double>& current) {
  if (history.size() < 2 || current.empty()) return {};
  std::vector<double> h;
  for (double v : history) h.push_back(std::log(v));
  const double mh = median(h);
  std::vector<double> dev;
  for (double v : h) dev.push_back(std::abs(v - mh));
  return z_with_sigma(history, current, 1.4826 * median(dev));
}

NoiseTest z_with_sigma(const std::vector<double>& reference, const std::vector<double>& current, double sigma_log) {
  NoiseTest t;
  t.sigma_log = sigma_log;
  if (reference.empty() || current.empty()) return t;
  auto mean_log = [](const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += std::log(v);
    return s / static_cast<double>(x.size());
  };
  const double se = sigma_log * std::sqrt(1.0 / static_cast<double>(current.size()) +
                                          1.0 / static_cast<double>(reference.size()));
  if (!(se > 0)) return t;
  t.z = (mean_log(current) - mean_log(reference)) / se;
  t.p_less = normal_cdf(t.z);
  t.p_greater = 1 - t.p_less;
  return t;
}

double normal_quantile(double p) {
  // Bisection on the CDF: 200 halvings of [-40, 40] reach double precision;
  // called a few times per command, never in a loop that matters.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double mann_whitney_min_p(int n, int m) {
  if (n <= 0 || m <= 0) return 1;
  double c = 1;  // C(n+m, n), built as a product so it stays exact while small
  for (int i = 1; i <= n; ++i) c = c * (m + i) / i;
  return 1 / c;
}

Verdict judge(const std::vector<double>& history, const std::vector<double>& current, Direction direction,
              const RegressionRule& rule) {
  Verdict v;
  if (history.empty() || current.empty()) return v;
  v.change = median(current) / median(history) - 1;
  v.noise = z_vs_history(history, current);
  v.rank = mann_whitney(current, history);
  const bool higher = direction == Direction::higher_is_better;
  const double p_worse = higher ? v.noise.p_less : v.noise.p_greater;
  const double p_better = higher ? v.noise.p_greater : v.noise.p_less;
  const double rank_worse = higher ? v.rank.p_less : v.rank.p_greater;
  const double rank_better = higher ? v.rank.p_greater : v.rank.p_less;
  const double bad = higher ? -v.change : v.change;  // > 0: worse
  v.regressed = p_worse < rule.alpha && rank_worse < rule.rank_alpha && bad > rule.min_effect;
  v.improved = p_better < rule.alpha && rank_better < rule.rank_alpha && -bad > rule.min_effect;
  return v;
}

}  // namespace ftb::stats
