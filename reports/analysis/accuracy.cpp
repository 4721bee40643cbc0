#include "reports/analysis/accuracy.h"

#include "reports/analysis/statistics.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ftb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Bounds {
  double low, high;  // proportions
};

Bounds wilson(int k, int n, double z) {
  const double p = static_cast<double>(k) / n, z2 = z * z;
  const double centre = (p + z2 / (2.0 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Bounds clopper_pearson(int k, int n, double level) {
  const double tail = (1 - level) / 2;
  const double lo = k == 0 ? 0.0 : boost::math::ibeta_inv(static_cast<double>(k), n - k + 1.0, tail);
  const double hi = k == n ? 1.0 : boost::math::ibeta_inv(k + 1.0, static_cast<double>(n - k), 1 - tail);
  return {lo, hi};
}

// log of the binomial probability P(X = i), X ~ Bin(n, p), 0 < p < 1.
double log_binomial_pmf(int n, int i, double p) {
  return std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
         (n - i) * std::log1p(-p);
}

}  // namespace

AccuracyInterval accuracy_interval(int correct, int n, double level, BinomialInterval method) {
  AccuracyInterval r{correct, n, kNaN, kNaN, kNaN, level, method};
  if (n < 1 || correct < 0 || correct > n) return r;
  const Bounds b = method == BinomialInterval::wilson ? wilson(correct, n, normal_quantile(1 - (1 - level) / 2))
                                                      : clopper_pearson(correct, n, level);
  r.accuracy = 100.0 * correct / n;
  r.low = 100 * b.low;
  r.high = 100 * b.high;
  return r;
}

PairCounts pair_counts(const std::vector<bool>& a, const std::vector<bool>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("per-example correctness of different splits: " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) + " examples");
  PairCounts c;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] && b[i]) ++c.both;
    else if (a[i]) ++c.only_a;
    else if (b[i]) ++c.only_b;
    else ++c.neither;
  }
  return c;
}

double mcnemar_exact_p(int only_a, int only_b) {
  const int m = only_a + only_b;
  if (m == 0) return 1;
  const boost::math::binomial_distribution<double> half(m, 0.5);
  return std::min(1.0, 2 * boost::math::cdf(half, std::min(only_a, only_b)));
}

PairedAccuracy paired_accuracy(const PairCounts& c, double level) {
  PairedAccuracy r;
  r.counts = c;
  r.level = level;
  const int n = c.n();
  if (n < 1) {
    r.difference = r.low = r.high = kNaN;
    return r;
  }
  const double z = normal_quantile(1 - (1 - level) / 2);
  const int ka = c.both + c.only_a, kb = c.both + c.only_b;
  const double pa = static_cast<double>(ka) / n, pb = static_cast<double>(kb) / n;
  const Bounds wa = wilson(ka, n, z), wb = wilson(kb, n, z);
  // The correlation of the pairs (phi), 0 where a margin is empty.
  const double denom = std::sqrt(1.0 * ka * (n - ka) * kb * (n - kb));
  const double phi =
      denom > 0 ? (1.0 * c.both * c.neither - 1.0 * c.only_a * c.only_b) / denom : 0.0;
  // Newcombe (1998), method 10, for the difference pb - pa.
  const double lo2 = std::pow(pb - wb.low, 2) - 2 * phi * (pb - wb.low) * (wa.high - pa) + std::pow(wa.high - pa, 2);
  const double hi2 = std::pow(wb.high - pb, 2) - 2 * phi * (wb.high - pb) * (pa - wa.low) + std::pow(pa - wa.low, 2);
  const double d = pb - pa;
  r.difference = 100 * d;
  r.low = 100 * std::max(-1.0, d - std::sqrt(std::max(0.0, lo2)));
  r.high = 100 * std::min(1.0, d + std::sqrt(std::max(0.0, hi2)));
  r.p_value = mcnemar_exact_p(c.only_a, c.only_b);
  return r;
}

Decision decide_points(double base, double difference, double low, double high, bool rejected,
                       double min_effect_points, double level) {
  Change c;  // estimate, low, high stay NaN (insufficient) without a baseline accuracy
  c.level = level;
  Judgement j;
  j.direction = Direction::higher_is_better;
  j.min_effect = base > 0 ? min_effect_points / base : min_effect_points / 100;
  if (base > 0 && std::isfinite(difference) && std::isfinite(low) && std::isfinite(high)) {
    c.estimate = std::log1p(difference / base);
    c.low = std::log1p(std::max(low / base, -1 + 1e-12));
    c.high = std::log1p(high / base);
    j.rejected = rejected;
  }
  return decide(c, j);
}

Decision judge_accuracy(const PairedAccuracy& p, double min_effect_points, double alpha) {
  const int n = p.counts.n(), ka = p.counts.both + p.counts.only_a;
  const double base = n > 0 ? 100.0 * ka / n : 0.0;  // A's accuracy, points
  return decide_points(base, p.difference, p.low, p.high, p.p_value <= alpha, min_effect_points, p.level);
}

KeepsAccuracy keeps_accuracy(Verdict v) {
  switch (v) {
    case Verdict::same:
    case Verdict::better: return KeepsAccuracy::yes;
    case Verdict::worse: return KeepsAccuracy::no;
    case Verdict::cannot_tell:
    case Verdict::insufficient: break;
  }
  return KeepsAccuracy::cannot_tell;
}

double mcnemar_power(int n, double p_only_a, double p_only_b, double alpha) {
  const double pd = p_only_a + p_only_b;
  if (n < 1 || pd <= 0 || pd >= 1) return 0;
  const double share = p_only_a / pd;
  double power = 0;
  for (int m = 1; m <= n; ++m) {
    const double pm = std::exp(log_binomial_pmf(n, m, pd));
    if (pm < 1e-15) continue;
    double reject = 0;  // P(the test rejects | m discordant examples)
    for (int b = 0; b <= m; ++b)
      if (mcnemar_exact_p(b, m - b) <= alpha)
        reject += share <= 0 ? (b == 0) : share >= 1 ? (b == m) : std::exp(log_binomial_pmf(m, b, share));
    power += pm * reject;
  }
  return power;
}

}  // namespace ftb::stats
