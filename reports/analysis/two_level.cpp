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
bool usable(const std::optional<KnownNoise>& k) { return k && k->run_sd > 0 && k->df > 0; }

JoinWeights join_weights(double own_df, double known_df) {
  if (!std::isfinite(known_df) || own_df <= 0) return {0, 1};  // the known noise alone
  return {own_df / (own_df + known_df), known_df / (own_df + known_df)};
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool normal_df(double df) { return !std::isfinite(df) || df > 1e6; }

// How one side's run-to-run variance is made: the weights on its own runs'
// sample variance and on the noise file's (df-weighted; they add to 1; both
// 0 when nothing estimates it).
struct SideWeights {
  double own = 0, file = 0;
  bool known() const { return own + file > 0; }
};

SideWeights side_weights(size_t runs, const std::optional<KnownNoise>& file) {
  const double df_runs = runs >= 2 ? static_cast<double>(runs - 1) : 0;
  if (!file) return {df_runs > 0 ? 1.0 : 0.0, 0};
  const JoinWeights w = join_weights(df_runs, file->df);
  return {w.own, w.known};
}

// One independent variance estimate's share of se^2, with its df.
struct VarianceTerm {
  double value = 0;
  double df = 0;
};

// Satterthwaite: se^4 / sum(term^2 / df); terms known exactly (infinite df)
// add no uncertainty, and with only those the df is infinite.
double satterthwaite_df(const std::vector<VarianceTerm>& terms) {
  double total = 0, denom = 0;
  for (const auto& t : terms) {
    total += t.value;
    if (t.value > 0 && std::isfinite(t.df)) denom += t.value * t.value / t.df;
  }
  return denom > 0 ? total * total / denom : std::numeric_limits<double>::infinity();
}

// Each side's variance of one run's level as compare_levels uses it, and its
// df (LevelDifference::var_a, df_a); a side nothing estimates takes the
// other's (what as_the_other_side assumes; unused when the caller cannot tell).
void record_sides(LevelDifference& d, const std::vector<double>& a, const std::vector<double>& b,
                  const std::optional<KnownNoise>& file, const SideWeights& wa, const SideWeights& wb) {
  auto side = [&](const std::vector<double>& x, const SideWeights& w, double& var, double& df) {
    if (!w.known()) return;
    var = 0;
    df = 0;
    if (w.own > 0) {
      var += w.own * sample_variance(x);
      df += static_cast<double>(x.size() - 1);
    }
    if (w.file > 0) {
      var += w.file * file->run_sd * file->run_sd;
      df += file->df;
    }
  };
  side(a, wa, d.var_a, d.df_a);
  side(b, wb, d.var_b, d.df_b);
  if (!wa.known()) {
    d.var_a = d.var_b;
    d.df_a = d.df_b;
  }
  if (!wb.known()) {
    d.var_b = d.var_a;
    d.df_b = d.df_a;
  }
}

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

namespace {

// The one-sided p-values at the test's df and the interval at the
// interval's df, from diff and se.
void test_difference(LevelDifference& d) {
  if (!(d.se > 0)) {
    // Identical levels everywhere: no spread to test against.
    d.p_up = d.diff > 0 ? 0 : 1;
    d.p_down = d.diff < 0 ? 0 : 1;
    d.low = d.high = d.diff;
    return;
  }
  const double t = d.diff / d.se;
  d.p_down = t_cdf(t, d.test_df);
  d.p_up = t_cdf(-t, d.test_df);
  const TBounds bounds = t_interval(d.diff, d.se, d.df, d.level);
  d.low = bounds.low;
  d.high = bounds.high;
}

}  // namespace

LevelDifference compare_levels(const std::vector<double>& a, const std::vector<double>& b,
                               const std::optional<KnownNoise>& noise, double level, UnmeasuredSide one_run) {
  LevelDifference d;
  d.level = level;
  d.runs_a = static_cast<int>(a.size());
  d.runs_b = static_cast<int>(b.size());
  if (a.empty() || b.empty()) return d;
  for (const auto* side : {&a, &b})
    for (double x : *side)
      if (!std::isfinite(x)) return d;  // a run with a value <= 0: no level, no claim (diff stays NaN)
  d.diff = mean(b) - mean(a);
  std::optional<KnownNoise> file;
  if (usable(noise)) file = noise;
  const double ka = static_cast<double>(a.size()), kb = static_cast<double>(b.size());
  const SideWeights wa = side_weights(a.size(), file), wb = side_weights(b.size(), file);
  // se^2 = on_a s2_a + on_b s2_b + on_file sigma2: each side's variance over its run count.
  double on_a = wa.own / ka, on_b = wb.own / kb, on_file = wa.file / ka + wb.file / kb;
  record_sides(d, a, b, file, wa, wb);
  if (!wa.known() || !wb.known()) {
    if ((!wa.known() && !wb.known()) || one_run == UnmeasuredSide::cannot_tell) return d;  // no claim
    // The unmeasured side is taken to be as noisy as the measured one (the caller's stated assumption).
    if (!wa.known()) {
      on_b += wb.own / ka;
      on_file += wb.file / ka;
    } else {
      on_a += wa.own / kb;
      on_file += wa.file / kb;
    }
  }
  const bool has_runs = a.size() >= 2 || b.size() >= 2;
  d.basis = has_runs && file ? NoiseBasis::runs_and_noise_file : has_runs ? NoiseBasis::runs : NoiseBasis::noise_file;
  std::vector<VarianceTerm> terms;
  if (on_a > 0) terms.push_back({on_a * sample_variance(a), ka - 1});
  if (on_b > 0) terms.push_back({on_b * sample_variance(b), kb - 1});
  if (on_file > 0) terms.push_back({on_file * file->run_sd * file->run_sd, file->df});
  double var = 0;
  for (const auto& t : terms) var += t.value;
  d.se = std::sqrt(var);
  d.df = satterthwaite_df(terms);
  // A side whose variance is its two runs' alone (one df, no noise file to
  // steady it) swings so far that Satterthwaite's df swings with it, upward
  // exactly when that variance came out small: 2 runs at 8 % against 6 at
  // 1.5 % covered 90 % (tests/test_interval_coverage.cpp). There the df is
  // that variance's own (Hsu's conservative choice: the t of the least-known
  // part), which covers at least the level.
  if (!file)
    for (const auto& t : terms)
      if (t.df < 2) d.df = std::min(d.df, t.df);
  d.test_df = std::min({d.df, d.df_a, d.df_b});
  test_difference(d);
  return d;
}

TBounds t_interval(double estimate, double se, double df, double level) {
  TBounds b;
  if (!std::isfinite(estimate) || !std::isfinite(se) || !(se > 0) || !(df > 0)) return b;
  const double q = t_quantile(1 - (1 - level) / 2, df);
  b.low = estimate - q * se;
  b.high = estimate + q * se;
  return b;
}

// The rows' rule (verdict.h's decide): Holm over their two-sided tests,
// one family; a row without a noise estimate is insufficient.
std::vector<Decision> run_verdicts(const std::vector<LevelDifference>& rows, double family_alpha, double min_effect) {
  std::vector<double> p;
  for (const auto& d : rows) p.push_back(d.basis == NoiseBasis::none ? kNaN : d.p_two_sided());
  const auto reject = holm_reject(p, family_alpha);
  std::vector<Decision> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& d = rows[i];
    const Change c{d.basis == NoiseBasis::none ? kNaN : d.diff, d.low, d.high, d.level,
                   {d.var_a, d.runs_a, d.df_a}, {d.var_b, d.runs_b, d.df_b}};
    out.push_back(decide(c, {min_effect, reject[i], Direction::higher_is_better, 0}));
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
