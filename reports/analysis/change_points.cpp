#include "reports/analysis/change_points.h"

#include <algorithm>
#include <cmath>

#include "reports/analysis/two_level.h"

namespace ftb::stats {
namespace {

// Matteson & James's Q statistic for splitting x[s, e) at t (alpha = 1):
// (m n / (m + n)) * (2/(mn) sum|a - b| - 2/(m(m-1)) sum_{i<k}|a_i - a_k| - 2/(n(n-1)) sum_{j<k}|b_j - b_k|).
double q_stat(const std::vector<double>& x, int s, int t, int e) {
  const double m = t - s, n = e - t;
  double between = 0, left = 0, right = 0;
  for (int i = s; i < t; ++i)
    for (int j = t; j < e; ++j) between += std::abs(x[i] - x[j]);
  for (int i = s; i < t; ++i)
    for (int k = i + 1; k < t; ++k) left += std::abs(x[i] - x[k]);
  for (int j = t; j < e; ++j)
    for (int k = j + 1; k < e; ++k) right += std::abs(x[j] - x[k]);
  const double e_stat = 2 * between / (m * n) - (m > 1 ? 2 * left / (m * (m - 1)) : 0) -
                        (n > 1 ? 2 * right / (n * (n - 1)) : 0);
  return m * n / (m + n) * e_stat;
}

void split(const std::vector<double>& x, int s, int e, const ChangePointOptions& o, std::vector<ChangePoint>& out) {
  int best = -1;
  double best_q = -1;
  for (int t = s + o.min_segment; t <= e - o.min_segment; ++t) {
    const double q = q_stat(x, s, t, e);
    if (q > best_q) {
      best_q = q;
      best = t;
    }
  }
  if (best < 0) return;
  const std::vector<double> a(x.begin() + s, x.begin() + best), b(x.begin() + best, x.begin() + e);
  const double p = student_p(a, b);
  if (!(p < o.max_p)) return;
  ChangePoint c;
  c.index = best;
  c.p = p;
  out.push_back(c);
  split(x, s, best, o, out);
  split(x, best, e, o, out);
}

}  // namespace

double student_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty() || a.size() + b.size() < 3) return 1;
  double ss = 0;
  for (const auto* side : {&a, &b})
    if (side->size() > 1) ss += sample_variance(*side) * static_cast<double>(side->size() - 1);
  const double df = static_cast<double>(a.size() + b.size() - 2);
  const double diff = mean(b) - mean(a);
  const double se2 = ss / df * (1.0 / static_cast<double>(a.size()) + 1.0 / static_cast<double>(b.size()));
  if (!(se2 > 0)) return diff == 0 ? 1 : 0;
  return std::min(1.0, 2 * t_cdf(-std::abs(diff) / std::sqrt(se2), df));
}

std::vector<ChangePoint> change_points(const std::vector<double>& x, const ChangePointOptions& o) {
  std::vector<ChangePoint> out;
  for (double v : x)
    if (!std::isfinite(v)) return out;
  split(x, 0, static_cast<int>(x.size()), o, out);
  std::sort(out.begin(), out.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Means of the final segments either side of each change.
  for (size_t k = 0; k < out.size(); ++k) {
    const int s = k == 0 ? 0 : out[k - 1].index;
    const int e = k + 1 < out.size() ? out[k + 1].index : static_cast<int>(x.size());
    out[k].before = mean(std::vector<double>(x.begin() + s, x.begin() + out[k].index));
    out[k].after = mean(std::vector<double>(x.begin() + out[k].index, x.begin() + e));
  }
  return out;
}

}  // namespace ftb::stats
