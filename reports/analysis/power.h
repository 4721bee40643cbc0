// What the nightly rule can see: a simulation through judge_nights (the rule
// `regress` runs) of nights with two levels of noise, giving the probability
// that a slowdown of one scenario is caught, and the whole report's false
// alarms when nothing changed. `ftbench power` prints it; docs/nightly.md
// quotes it for the defaults. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <vector>

#include "reports/analysis/nightly.h"

namespace ftb::stats {

struct PowerSetup {
  int scenarios = 10;       // series in one report (Holm's family)
  int nights = 8;           // history nights before tonight
  int repeats = 5;          // repeats a night
  double within = 0.03;     // sd of one repeat around its night (log)
  double between = 0.02;    // sd of a night's luck (log), half shared by the night's scenarios
  int trials = 2000;
  uint64_t seed = 20261201;
  NightlyRule rule;
};

struct PowerPoint {
  double slowdown = 0;           // of one scenario, relative (0.15 = 15 % fewer samples/s)
  double caught = 0;             // P(that scenario regressed)
  double whole_report_alarm = 0; // P(any scenario regressed): for slowdown 0, the false-alarm rate
};

std::vector<PowerPoint> detection_curve(const PowerSetup& setup, const std::vector<double>& slowdowns);

}  // namespace ftb::stats
