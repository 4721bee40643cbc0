#include "reports/analysis/power.h"

#include <cmath>
#include <random>

namespace ftb::stats {

std::vector<PowerPoint> detection_curve(const PowerSetup& p, const std::vector<double>& slowdowns) {
  std::vector<PowerPoint> out;
  // The same draws for every slowdown (common random numbers): the curve
  // differs between its points by the slowdown alone.
  std::mt19937_64 rng;
  std::normal_distribution<double> z;
  const double half = p.between / std::sqrt(2.0);
  // One night of every scenario; scenario 0's level moved by `shift` (log).
  auto night = [&](double shift, std::vector<std::vector<double>>& into) {
    const double shared = half * z(rng);
    into.assign(static_cast<size_t>(p.scenarios), {});
    for (int i = 0; i < p.scenarios; ++i) {
      const double level = (i == 0 ? shift : 0) + shared + half * z(rng);
      for (int k = 0; k < p.repeats; ++k) into[i].push_back(100.0 * (1 + i) * std::exp(level + p.within * z(rng)));
    }
  };
  for (double slowdown : slowdowns) {
    rng.seed(p.seed);
    PowerPoint point;
    point.slowdown = slowdown;
    int caught = 0, any = 0;
    std::vector<std::vector<double>> nt;
    for (int t = 0; t < p.trials; ++t) {
      std::vector<NightSeries> series(static_cast<size_t>(p.scenarios));
      for (int n = 0; n < p.nights; ++n) {
        night(0, nt);
        for (int i = 0; i < p.scenarios; ++i) series[i].nights.push_back(nt[i]);
      }
      night(std::log1p(-slowdown), nt);
      for (int i = 0; i < p.scenarios; ++i) series[i].tonight = nt[i];
      const auto v = judge_nights(series, p.rule);
      caught += v[0].outcome == NightOutcome::regressed;
      bool alarm = false;
      for (const auto& x : v) alarm = alarm || x.outcome == NightOutcome::regressed;
      any += alarm;
    }
    point.caught = static_cast<double>(caught) / p.trials;
    point.whole_report_alarm = static_cast<double>(any) / p.trials;
    out.push_back(point);
  }
  return out;
}

}  // namespace ftb::stats
