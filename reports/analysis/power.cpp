#include "reports/analysis/power.h"

#include <boost/math/special_functions/beta.hpp>

#include <cmath>
#include <random>

namespace ftb::stats {

std::vector<ScenarioNoise> PowerSetup::scenario_noise() const {
  if (!noise.empty()) return noise;
  std::vector<ScenarioNoise> out;
  for (int i = 0; i < scenarios; ++i) out.push_back({"scenario-" + std::to_string(i + 1), within, between});
  return out;
}

double rate_upper_bound(int k, int n, double level) {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  return boost::math::ibeta_inv(static_cast<double>(k + 1), static_cast<double>(n - k), level);
}

namespace {

bool any_regressed(const std::vector<NightVerdict>& v) {
  for (const auto& x : v)
    if (x.outcome == Verdict::worse) return true;
  return false;
}

// The simulated machine of one detection curve: its scenarios' noise, the
// nights' stream (seeded per slowdown; its normal distribution kept across
// slowdowns, as it always was, so the curves stay as published) and the
// last night's luck of each scenario.
struct Machine {
  const PowerSetup& p;
  std::vector<ScenarioNoise> sc;
  int S;
  double shared_sd, own_sd;
  std::mt19937_64 rng;
  std::normal_distribution<double> z;
  std::vector<double> luck;

  explicit Machine(const PowerSetup& setup)
      : p(setup), sc(setup.scenario_noise()), S(static_cast<int>(sc.size())), shared_sd(std::sqrt(setup.shared)),
        own_sd(std::sqrt(1 - setup.shared)), luck(static_cast<size_t>(S), 0.0) {}

  // One night of every scenario; `shift[i]` moves scenario i's level (log).
  // `zg` is the generator's own normal distribution: one shared between two
  // streams would carry a cached draw from one into the other.
  // `l` holds each scenario's standardised luck of the night (written);
  // `inherit` (a rerun's) mixes in that much of the first run's luck.
  void night_from(std::mt19937_64& g, std::normal_distribution<double>& zg, const std::vector<double>& shift,
                  std::vector<std::vector<double>>& into, std::vector<double>& l, double inherit) {
    const double shared = zg(g);
    into.assign(static_cast<size_t>(S), {});
    for (int i = 0; i < S; ++i) {
      const auto& n = sc[static_cast<size_t>(i)];
      const double fresh = shared_sd * shared + own_sd * zg(g);
      double& li = l[static_cast<size_t>(i)];
      li = inherit > 0 ? std::sqrt(inherit) * li + std::sqrt(1 - inherit) * fresh : fresh;
      const double level = shift[static_cast<size_t>(i)] + n.between * li;
      for (int k = 0; k < p.repeats; ++k) into[i].push_back(100.0 * (1 + i) * std::exp(level + n.within * zg(g)));
    }
  }

  // The history nights (the outlying one mid-window) and tonight's first run.
  std::vector<NightSeries> trial(const std::vector<double>& outlying, const std::vector<double>& tonight) {
    const std::vector<double> none(static_cast<size_t>(S), 0.0);
    std::vector<NightSeries> series(static_cast<size_t>(S));
    std::vector<std::vector<double>> nt;
    for (int n = 0; n < p.nights; ++n) {
      night_from(rng, z, n == p.nights / 2 ? outlying : none, nt, luck, 0);
      for (int i = 0; i < S; ++i) series[i].nights.push_back(nt[i]);
    }
    night_from(rng, z, tonight, nt, luck, 0);
    for (int i = 0; i < S; ++i) series[i].tonight = nt[i];
    return series;
  }

  // The confirmation of trial t's first alarm: more runs of tonight, each
  // with luck of its own (from its own seeded stream, so the draws of every
  // other night stay as they were), judged together with the first.
  std::vector<NightVerdict> confirm(std::vector<NightSeries>& series, const std::vector<double>& tonight, int t) {
    std::mt19937_64 again(p.seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(t + 1)));
    std::normal_distribution<double> z_again;
    std::vector<std::vector<double>> nt;
    for (int k = 0; k < p.reruns; ++k) {
      std::vector<double> rerun_luck = luck;
      night_from(again, z_again, tonight, nt, rerun_luck, p.rerun_shares);
      for (int i = 0; i < S; ++i) series[i].reruns.push_back(nt[i]);
    }
    return judge_nights(series, p.rule);
  }
};

}  // namespace

std::vector<PowerPoint> detection_curve(const PowerSetup& p, const std::vector<double>& slowdowns, int slowed) {
  Machine m(p);
  const int odd = m.S > 1 ? (slowed + 1) % m.S : -1;  // the scenario with the outlying night
  std::vector<PowerPoint> out;
  const std::vector<double> none(static_cast<size_t>(m.S), 0.0);
  for (double slowdown : slowdowns) {
    m.rng.seed(p.seed);
    PowerPoint point;
    point.slowdown = slowdown;
    point.slowed = slowed;
    point.trials = p.trials;
    std::vector<double> tonight = none, outlying = none;
    tonight[static_cast<size_t>(slowed)] = std::log1p(-slowdown);
    if (odd >= 0 && p.outlier != 0) outlying[static_cast<size_t>(odd)] = std::log1p(p.outlier);
    for (int t = 0; t < p.trials; ++t) {
      auto series = m.trial(outlying, tonight);
      auto v = judge_nights(series, p.rule);
      bool alarm = any_regressed(v);
      point.first_alarms += alarm;
      if (alarm && p.reruns > 0) {
        v = m.confirm(series, tonight, t);
        alarm = any_regressed(v);
      }
      point.caught += v[static_cast<size_t>(slowed)].outcome == Verdict::worse;
      point.whole_report_alarms += alarm;
    }
    out.push_back(point);
  }
  return out;
}

double min_detectable_slowdown(const PowerSetup& setup, int slowed, double power) {
  double lo = 0, hi = 0.95;
  if (detection_curve(setup, {hi}, slowed)[0].caught_rate() < power) return 1;
  while (hi - lo > 0.0025) {
    const double mid = (lo + hi) / 2;
    (detection_curve(setup, {mid}, slowed)[0].caught_rate() >= power ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace ftb::stats
