#include "reports/analysis/change_points.h"

#include <algorithm>
#include <cmath>

#include "reports/analysis/two_level.h"

namespace ftb::stats {
namespace {

// Half the energy distance between the values of x in groups a and b,
// scaled as Matteson & James's Q (alpha = 1):
// (m n / (m + n)) * (2/(mn) sum|a - b| - 2/(m(m-1)) sum_{i<k}|a_i - a_k| - 2/(n(n-1)) sum_{j<k}|b_j - b_k|).
double energy(const std::vector<double>& a, const std::vector<double>& b) {
  const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
  double between = 0, left = 0, right = 0;
  for (double u : a)
    for (double v : b) between += std::abs(u - v);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t k = i + 1; k < a.size(); ++k) left += std::abs(a[i] - a[k]);
  for (size_t j = 0; j < b.size(); ++j)
    for (size_t k = j + 1; k < b.size(); ++k) right += std::abs(b[j] - b[k]);
  const double e_stat = 2 * between / (m * n) - (m > 1 ? 2 * left / (m * (m - 1)) : 0) -
                        (n > 1 ? 2 * right / (n * (n - 1)) : 0);
  return m * n / (m + n) * e_stat;
}

std::vector<double> slice(const std::vector<double>& x, int s, int e) {
  return std::vector<double>(x.begin() + s, x.begin() + e);
}

// A proposal for segment [s, e): one split (t1 only) or a level that leaves
// and comes back (the values [t1, t2) against the rest of the segment).
struct Proposal {
  int t1 = -1, t2 = -1;
  double p = 1;
};

// E-divisive's split: the t that maximises Q over [s, e), judged by the
// Student t-test of its two sides.
Proposal best_split(const std::vector<double>& x, int s, int e, int min_segment) {
  Proposal best;
  double best_q = -1;
  for (int t = s + min_segment; t <= e - min_segment; ++t) {
    const double q = energy(slice(x, s, t), slice(x, t, e));
    if (q > best_q) {
      best_q = q;
      best.t1 = t;
    }
  }
  if (best.t1 >= 0) best.p = student_p(slice(x, s, best.t1), slice(x, best.t1, e));
  return best;
}

// The interval [t1, t2) inside [s, e), at least min_segment values on each
// of its three sides, that maximises Q of the interval against the rest of
// the segment (circular binary segmentation's arc, Olshen et al.,
// Biostatistics 2004, with E-divisive's statistic), judged by the Student
// t-test of the interval against the rest. No single split of a segment
// separates a level that leaves and comes back: either side of any split
// holds both levels.
Proposal best_excursion(const std::vector<double>& x, int s, int e, int min_segment) {
  Proposal best;
  double best_q = -1;
  for (int t1 = s + min_segment; t1 <= e - 2 * min_segment; ++t1)
    for (int t2 = t1 + min_segment; t2 <= e - min_segment; ++t2) {
      std::vector<double> rest = slice(x, s, t1);
      rest.insert(rest.end(), x.begin() + t2, x.begin() + e);
      const double q = energy(slice(x, t1, t2), rest);
      if (q > best_q) {
        best_q = q;
        best = {t1, t2, 1};
      }
    }
  if (best.t1 >= 0) {
    std::vector<double> rest = slice(x, s, best.t1);
    rest.insert(rest.end(), x.begin() + best.t2, x.begin() + e);
    best.p = student_p(slice(x, best.t1, best.t2), rest);
  }
  return best;
}

// The first pass: candidates at the relaxed threshold, recursively (binary
// segmentation), each segment's stronger proposal first.
void propose(const std::vector<double>& x, int s, int e, const ChangePointOptions& o, std::vector<int>& out) {
  const Proposal one = best_split(x, s, e, o.min_segment);
  const Proposal two = o.excursions ? best_excursion(x, s, e, o.min_segment) : Proposal{};
  const Proposal& p = two.t2 >= 0 && two.p < one.p ? two : one;
  if (p.t1 < 0 || !(p.p < o.first_pass_p)) return;
  out.push_back(p.t1);
  if (p.t2 < 0) {
    propose(x, s, p.t1, o, out);
    propose(x, p.t1, e, o, out);
    return;
  }
  out.push_back(p.t2);
  propose(x, s, p.t1, o, out);
  propose(x, p.t1, p.t2, o, out);
  propose(x, p.t2, e, o, out);
}

// Student's p of change point k against its neighbouring segments.
double neighbour_p(const std::vector<double>& x, const std::vector<int>& cps, size_t k) {
  const int s = k == 0 ? 0 : cps[k - 1];
  const int e = k + 1 < cps.size() ? cps[k + 1] : static_cast<int>(x.size());
  return student_p(slice(x, s, cps[k]), slice(x, cps[k], e));
}

// Otava's merge (Fleming et al., ICPE 2023): while a candidate's p against
// its neighbouring segments is max_p or more, drop the weakest, which
// merges its two segments, and test again.
std::vector<ChangePoint> merge(const std::vector<double>& x, std::vector<int> cps, double max_p) {
  std::sort(cps.begin(), cps.end());
  cps.erase(std::unique(cps.begin(), cps.end()), cps.end());
  std::vector<double> p;
  while (!cps.empty()) {
    p.clear();
    for (size_t k = 0; k < cps.size(); ++k) p.push_back(neighbour_p(x, cps, k));
    const auto weakest = std::max_element(p.begin(), p.end());
    if (*weakest < max_p) break;
    cps.erase(cps.begin() + (weakest - p.begin()));
  }
  std::vector<ChangePoint> out;
  for (size_t k = 0; k < cps.size(); ++k) {
    ChangePoint c;
    c.index = cps[k];
    c.p = p[k];
    const int s = k == 0 ? 0 : cps[k - 1];
    const int e = k + 1 < cps.size() ? cps[k + 1] : static_cast<int>(x.size());
    c.before = mean(slice(x, s, cps[k]));
    c.after = mean(slice(x, cps[k], e));
    out.push_back(c);
  }
  return out;
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

bool ChangePointOptions::defaults() const {
  const ChangePointOptions d;
  return max_p == d.max_p && first_pass_p == d.first_pass_p && min_segment == d.min_segment &&
         excursions == d.excursions;
}

std::vector<ChangePoint> change_points(const std::vector<double>& x, const ChangePointOptions& o) {
  for (double v : x)
    if (!std::isfinite(v)) return {};
  std::vector<int> candidates;
  propose(x, 0, static_cast<int>(x.size()), o, candidates);
  return merge(x, std::move(candidates), o.max_p);
}

}  // namespace ftb::stats
