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

std::vector<PowerPoint> detection_curve(const PowerSetup& p, const std::vector<double>& slowdowns, int slowed) {
  const std::vector<ScenarioNoise> sc = p.scenario_noise();
  const int S = static_cast<int>(sc.size());
  const int odd = S > 1 ? (slowed + 1) % S : -1;  // the scenario with the outlying night
  std::vector<PowerPoint> out;
  std::mt19937_64 rng;
  std::normal_distribution<double> z;
  const double shared_sd = std::sqrt(p.shared), own_sd = std::sqrt(1 - p.shared);
  // One night of every scenario; `shift[i]` moves scenario i's level (log).
  // `zg` is the generator's own normal distribution: one shared between two
  // streams would carry a cached draw from one into the other.
  // `luck[i]` is scenario i's standardised luck of the night (written);
  // `inherit` (a rerun's) mixes in that much of the first run's luck.
  auto night_from = [&](std::mt19937_64& g, std::normal_distribution<double>& zg, const std::vector<double>& shift,
                        std::vector<std::vector<double>>& into, std::vector<double>& luck, double inherit) {
    const double shared = zg(g);
    into.assign(static_cast<size_t>(S), {});
    for (int i = 0; i < S; ++i) {
      const auto& n = sc[static_cast<size_t>(i)];
      const double fresh = shared_sd * shared + own_sd * zg(g);
      double& l = luck[static_cast<size_t>(i)];
      l = inherit > 0 ? std::sqrt(inherit) * l + std::sqrt(1 - inherit) * fresh : fresh;
      const double level = shift[static_cast<size_t>(i)] + n.between * l;
      for (int k = 0; k < p.repeats; ++k) into[i].push_back(100.0 * (1 + i) * std::exp(level + n.within * zg(g)));
    }
  };
  std::vector<double> luck(static_cast<size_t>(S), 0.0);
  auto night = [&](const std::vector<double>& shift, std::vector<std::vector<double>>& into) {
    night_from(rng, z, shift, into, luck, 0);
  };
  auto any_regressed = [](const std::vector<NightVerdict>& v) {
    for (const auto& x : v)
      if (x.outcome == NightOutcome::regressed) return true;
    return false;
  };
  const std::vector<double> none(static_cast<size_t>(S), 0.0);
  for (double slowdown : slowdowns) {
    rng.seed(p.seed);
    PowerPoint point;
    point.slowdown = slowdown;
    point.slowed = slowed;
    point.trials = p.trials;
    std::vector<double> tonight = none;
    tonight[static_cast<size_t>(slowed)] = std::log1p(-slowdown);
    std::vector<double> outlying = none;
    if (odd >= 0 && p.outlier != 0) outlying[static_cast<size_t>(odd)] = std::log1p(p.outlier);
    std::vector<std::vector<double>> nt;
    for (int t = 0; t < p.trials; ++t) {
      std::vector<NightSeries> series(static_cast<size_t>(S));
      for (int n = 0; n < p.nights; ++n) {
        night(n == p.nights / 2 ? outlying : none, nt);
        for (int i = 0; i < S; ++i) series[i].nights.push_back(nt[i]);
      }
      night(tonight, nt);
      for (int i = 0; i < S; ++i) series[i].tonight = nt[i];
      auto v = judge_nights(series, p.rule);
      bool alarm = any_regressed(v);
      point.first_alarms += alarm;
      if (alarm && p.reruns > 0) {
        // The confirmation: more runs of tonight, each with luck of its own,
        // judged together with the first.
        std::mt19937_64 again(p.seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(t + 1)));
        std::normal_distribution<double> z_again;
        const std::vector<double> first_luck = luck;
        for (int k = 0; k < p.reruns; ++k) {
          std::vector<double> rerun_luck = first_luck;
          night_from(again, z_again, tonight, nt, rerun_luck, p.rerun_shares);
          for (int i = 0; i < S; ++i) series[i].reruns.push_back(nt[i]);
        }
        v = judge_nights(series, p.rule);
        alarm = any_regressed(v);
      }
      point.caught += v[static_cast<size_t>(slowed)].outcome == NightOutcome::regressed;
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
