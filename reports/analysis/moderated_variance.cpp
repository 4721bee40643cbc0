#include "reports/analysis/moderated_variance.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <cmath>

namespace ftb::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool usable(double s2, double d) { return std::isfinite(s2) && s2 > 0 && std::isfinite(d) && d >= 1; }

// The prior from the series in `in` (d0 = 0 when there are too few).
VariancePrior fit_once(const std::vector<double>& s2, const std::vector<double>& d, const std::vector<bool>& in,
                       int min_series) {
  VariancePrior p;
  std::vector<double> e, tri;
  for (size_t g = 0; g < s2.size(); ++g) {
    if (!in[g]) continue;
    const double half = d[g] / 2;
    // log s2 centred by its chi-square expectation: E[e] = log s0^2 - digamma(d0/2) + log(d0/2).
    e.push_back(std::log(s2[g]) - boost::math::digamma(half) + std::log(half));
    tri.push_back(boost::math::trigamma(half));
    p.total_df += d[g];
  }
  p.pooled = static_cast<int>(e.size());
  if (p.pooled < min_series) {
    p.d0 = 0;
    return p;
  }
  double mean = 0, mean_tri = 0;
  for (size_t k = 0; k < e.size(); ++k) {
    mean += e[k] / static_cast<double>(e.size());
    mean_tri += tri[k] / static_cast<double>(e.size());
  }
  double var = 0;
  for (double x : e) var += (x - mean) * (x - mean) / static_cast<double>(e.size() - 1);
  // The spread of the log variances at its upper confidence bound (chi-square
  // with G - 1 df): ten series that look alike by chance must not hand each
  // other all their degrees of freedom (simulated: with the point estimate,
  // two scenarios twice as noisy as eight others alarmed 1.9 % of A/A nights).
  const boost::math::chi_squared_distribution<double> chi(static_cast<double>(e.size() - 1));
  var *= static_cast<double>(e.size() - 1) / boost::math::quantile(chi, 1 - kSpreadConfidence);
  // What the sampling noise of each s2 does not explain is the scatter of the true variances.
  const double excess = var - mean_tri;
  if (excess > 0) {
    p.d0 = 2 * trigamma_inverse(excess);
    p.s0_squared = std::exp(mean + boost::math::digamma(p.d0 / 2) - std::log(p.d0 / 2));
  } else {
    p.d0 = kInf;
    p.s0_squared = std::exp(mean);
  }
  return p;
}

// P(a variance this large or larger | the prior): the upper tail of F(d, d0).
double upper_tail(const VariancePrior& p, double s2, double d) {
  const double ratio = s2 / p.s0_squared;
  if (!std::isfinite(p.d0)) {
    const boost::math::chi_squared_distribution<double> chi(d);
    return boost::math::cdf(boost::math::complement(chi, d * ratio));
  }
  const boost::math::fisher_f_distribution<double> f(d, p.d0);
  return boost::math::cdf(boost::math::complement(f, ratio));
}

}  // namespace

double trigamma_inverse(double x) {
  if (!(x > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (x > 1e7) return 1 / std::sqrt(x);
  if (x < 1e-6) return 1 / x;
  double y = 0.5 + 1 / x;  // trigamma(y) ~ 1/y + 1/(2 y^2): a start from above
  for (int i = 0; i < 50; ++i) {
    const double t = boost::math::trigamma(y);
    const double step = t * (1 - t / x) / boost::math::polygamma(2, y);
    y += step;
    if (-step / y < 1e-8) break;
  }
  return y;
}

VariancePrior fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& d, double outlier_alpha,
                                 int min_series) {
  const size_t G = s2.size();
  std::vector<bool> use(G, false), outlier(G, false);
  for (size_t g = 0; g < G; ++g) use[g] = usable(s2[g], d[g]);
  VariancePrior p;
  // Fit without the outliers; test each series against the fit of the
  // others (leave one out: an outlying series must not widen the yardstick
  // it is measured with); until the set of outliers stops changing.
  for (int round = 0; round < 10; ++round) {
    std::vector<bool> in(G);
    for (size_t g = 0; g < G; ++g) in[g] = use[g] && !outlier[g];
    p = fit_once(s2, d, in, min_series);
    std::vector<bool> next(G, false);
    for (size_t g = 0; g < G; ++g) {
      if (!use[g]) continue;
      std::vector<bool> others = in;
      others[g] = false;
      const VariancePrior q = fit_once(s2, d, others, min_series);
      next[g] = q.d0 > 0 && upper_tail(q, s2[g], d[g]) < outlier_alpha;
    }
    if (next == outlier) break;
    outlier = next;
    if (round == 9) {  // no fixed point: the fit of the last set
      for (size_t g = 0; g < G; ++g) in[g] = use[g] && !outlier[g];
      p = fit_once(s2, d, in, min_series);
    }
  }
  if (p.d0 == 0) outlier.assign(G, false);  // no pool to be an outlier of
  p.outlier = outlier;
  return p;
}

ModeratedVariance moderate(const VariancePrior& p, int g, double s2, double d) {
  ModeratedVariance m;
  const bool own = g >= 0 && static_cast<size_t>(g) < p.outlier.size() && p.outlier[static_cast<size_t>(g)];
  if (own || !(p.d0 > 0) || !std::isfinite(p.s0_squared)) {
    m.var = s2;
    m.df = d;
    m.own = own;
    return m;
  }
  if (!std::isfinite(p.d0)) {
    m.var = p.s0_squared;
    m.df = p.total_df;
    return m;
  }
  const double s = std::isfinite(s2) && d > 0 ? s2 : 0;
  const double dd = std::isfinite(s2) && d > 0 ? d : 0;
  m.var = (p.d0 * p.s0_squared + dd * s) / (p.d0 + dd);
  m.df = std::min(p.d0 + dd, std::max(p.total_df, dd));
  return m;
}

}  // namespace ftb::stats
