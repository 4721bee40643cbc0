#include "reports/analysis/two_level.h"

#include "core/measure/records.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <random>

namespace ftb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool normal_df(double df) { return !std::isfinite(df) || df > 1e6; }


}  // namespace

double t_cdf(double t, double df) {
  if (std::isnan(t)) return kNaN;
  if (!std::isfinite(t)) return t > 0 ? 1 : 0;
  if (!(df > 0)) return kNaN;
  if (normal_df(df)) return boost::math::cdf(boost::math::normal_distribution<double>(), t);
  return boost::math::cdf(boost::math::students_t_distribution<double>(df), t);
}

double t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  if (normal_df(df)) return boost::math::quantile(boost::math::normal_distribution<double>(), p);
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

double median_variance_factor(int n) {
  if (n <= 2) return 1;
  if (n > 60) return 1.5707963267948966 * (1 - 0.5 / n);  // pi/2, approached from below
  static std::mutex mu;
  static std::map<int, double> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(n); it != cache.end()) return it->second;
  // Deterministic simulation: 200,000 medians of n standard normals (a fixed
  // seed, so every run of ftbench uses the same factor; standard error about
  // 0.3 %).
  std::mt19937_64 rng(1234567u + static_cast<unsigned>(n));
  std::normal_distribution<double> z;
  constexpr int kDraws = 200000;
  std::vector<double> v(static_cast<size_t>(n));
  double sum = 0, sum2 = 0;
  for (int i = 0; i < kDraws; ++i) {
    for (auto& x : v) x = z(rng);
    const double m = median(v);  // the one median (core/measure/records.h)
    sum += m;
    sum2 += m * m;
  }
  const double var = (sum2 - sum * sum / kDraws) / (kDraws - 1);
  return cache[n] = var * n;
}

std::vector<double> log_values(const std::vector<double>& x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x) out.push_back(v > 0 ? std::log(v) : kNaN);
  return out;
}

double run_level(const std::vector<double>& repeats) {
  const auto logs = log_values(repeats);
  for (double v : logs)
    if (!std::isfinite(v)) return kNaN;
  return logs.empty() ? kNaN : median(std::move(logs));
}

double mean(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double sample_variance(const std::vector<double>& x) {
  if (x.size() < 2) return kNaN;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

WithinNoise within_run_noise(const std::vector<std::vector<double>>& runs) {
  WithinNoise w;
  double ss = 0, n = 0;
  for (const auto& r : runs) {
    const auto logs = log_values(r);
    n += static_cast<double>(logs.size());
    if (logs.size() < 2) continue;
    const double m = mean(logs);
    for (double v : logs) ss += (v - m) * (v - m);
    w.df += static_cast<double>(logs.size() - 1);
  }
  w.mean_n = runs.empty() ? 0 : n / static_cast<double>(runs.size());
  w.var = w.df > 0 ? ss / w.df : kNaN;
  return w;
}

RunNoise estimate_run_noise(const std::vector<std::vector<double>>& runs) {
  RunNoise r;
  r.runs = static_cast<int>(runs.size());
  std::vector<double> levels;
  for (const auto& run : runs) levels.push_back(run_level(run));
  const WithinNoise w = within_run_noise(runs);
  r.mean_repeats = w.mean_n;
  r.within_df = w.df;
  r.within_sd = std::sqrt(w.var);
  if (levels.size() >= 2) {
    r.run_sd = std::sqrt(sample_variance(levels));
    r.run_df = static_cast<double>(levels.size() - 1);
  }
  if (std::isfinite(r.run_sd)) {
    const int n = std::max(1, static_cast<int>(std::lround(w.mean_n)));
    const double within_part = std::isfinite(w.var) ? median_variance_factor(n) * w.var / n : 0;
    const double between = std::max(0.0, r.run_sd * r.run_sd - within_part);
    r.between_sd = std::sqrt(between);
    if (std::isfinite(w.var) && between + w.var > 0) r.between_share = between / (between + w.var);
  }
  return r;
}

std::string to_string(NoiseBasis b) {
  switch (b) {
    case NoiseBasis::runs: return "runs";
    case NoiseBasis::noise_file: return "noise file";
    case NoiseBasis::runs_and_noise_file: return "runs and noise file";
    case NoiseBasis::none: return "none";
  }
  return "?";
}

double LevelDifference::p_two_sided() const {
  if (!std::isfinite(p_up) || !std::isfinite(p_down)) return kNaN;
  return std::min(1.0, 2 * std::min(p_up, p_down));
}

LevelDifference compare_levels(const std::vector<double>& a, const std::vector<double>& b,
                               const std::optional<KnownNoise>& noise, double level) {
  LevelDifference d;
  d.level = level;
  d.runs_a = static_cast<int>(a.size());
  d.runs_b = static_cast<int>(b.size());
  if (a.empty() || b.empty()) return d;
  for (const auto* side : {&a, &b})
    for (double x : *side)
      if (!std::isfinite(x)) return d;  // a run with a value <= 0: no level, no claim (diff stays NaN)
  d.diff = mean(b) - mean(a);
  // Pooled run-to-run variance from the runs (both sides measure the same
  // noise of one configuration), combined with the noise file's by df.
  double ss = 0, df_runs = 0;
  for (const auto* side : {&a, &b}) {
    if (side->size() < 2) continue;
    ss += sample_variance(*side) * static_cast<double>(side->size() - 1);
    df_runs += static_cast<double>(side->size() - 1);
  }
  const bool has_noise = noise && noise->run_sd > 0 && noise->df > 0;
  double var = kNaN;
  if (df_runs > 0 && has_noise) {
    d.basis = NoiseBasis::runs_and_noise_file;
    if (std::isfinite(noise->df)) {
      d.df = df_runs + noise->df;
      var = (ss + noise->df * noise->run_sd * noise->run_sd) / d.df;
    } else {  // known exactly: the runs add nothing to it
      d.df = noise->df;
      var = noise->run_sd * noise->run_sd;
    }
  } else if (df_runs > 0) {
    d.basis = NoiseBasis::runs;
    d.df = df_runs;
    var = ss / df_runs;
  } else if (has_noise) {
    d.basis = NoiseBasis::noise_file;
    d.df = noise->df;
    var = noise->run_sd * noise->run_sd;
  } else {
    return d;  // one run a side and nothing else: no claim
  }
  d.se = std::sqrt(var * (1.0 / static_cast<double>(a.size()) + 1.0 / static_cast<double>(b.size())));
  if (!(d.se > 0)) {
    // Identical levels everywhere: no spread to test against.
    d.p_up = d.diff > 0 ? 0 : 1;
    d.p_down = d.diff < 0 ? 0 : 1;
    d.low = d.high = d.diff;
    return d;
  }
  const double t = d.diff / d.se;
  d.p_down = t_cdf(t, d.df);
  d.p_up = t_cdf(-t, d.df);
  const double q = t_quantile(1 - (1 - level) / 2, d.df);
  d.low = d.diff - q * d.se;
  d.high = d.diff + q * d.se;
  return d;
}

std::string to_string(RunVerdict v) {
  switch (v) {
    case RunVerdict::faster: return "faster";
    case RunVerdict::slower: return "slower";
    case RunVerdict::same: return "same within noise";
    case RunVerdict::cannot_tell: return "cannot tell";
  }
  return "?";
}

std::vector<RunVerdict> run_verdicts(const std::vector<LevelDifference>& rows, double family_alpha, double min_effect) {
  std::vector<double> p;
  for (const auto& d : rows) p.push_back(d.basis == NoiseBasis::none ? kNaN : d.p_two_sided());
  const auto reject = holm_reject(p, family_alpha);
  std::vector<RunVerdict> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& d = rows[i];
    if (d.basis == NoiseBasis::none || !std::isfinite(d.diff)) {
      out.push_back(RunVerdict::cannot_tell);
      continue;
    }
    const double ratio = std::exp(d.diff);
    out.push_back(reject[i] && ratio >= 1 + min_effect   ? RunVerdict::faster
                  : reject[i] && ratio <= 1 - min_effect ? RunVerdict::slower
                                                         : RunVerdict::same);
  }
  return out;
}

std::vector<bool> holm_reject(const std::vector<double>& p, double alpha) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<bool> reject(p.size(), false);
  const double m = static_cast<double>(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (p[order[k]] > alpha / (m - static_cast<double>(k))) break;
    reject[order[k]] = true;
  }
  return reject;
}

}  // namespace ftb::stats
