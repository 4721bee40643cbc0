// What the nightly rule can see: a simulation through judge_nights (the rule
// `regress` runs) of nights with two levels of noise, giving the probability
// that a slowdown of one scenario is caught, and the whole report's false
// alarms when nothing changed. `ftbench power` prints it; docs/statistics.md
// quotes it; tests/test_nightly_simulation.cpp holds the rule to its rates
// with it. Deterministic for a seed.
//
// The simulated machine: scenario i's repeat on night n is
//   exp(level_i + shared_n * b_i sqrt(s) + own_in * b_i sqrt(1 - s) + w_i z)
// with b_i its between-night sd, w_i its within-run sd, s the share of the
// between-night variance that a night gives every scenario at once; and,
// optionally, one outlying history night of one scenario (not the slowed one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/analysis/nightly.h"

namespace ftb::stats {

struct ScenarioNoise {
  std::string name;
  double within = 0.03;   // sd of one repeat around its night (log)
  double between = 0.02;  // sd of a night's luck (log)
};

struct PowerSetup {
  int scenarios = 10;       // series in one report (Holm's family), when `noise` is empty
  int nights = 8;           // history nights before tonight
  int repeats = 5;          // repeats a night
  double within = 0.03;     // every scenario's noise, when `noise` is empty
  double between = 0.02;
  std::vector<ScenarioNoise> noise;  // one per scenario: noise that differs by scenario
  double shared = 0.5;      // share of the between-night variance common to the night's scenarios
  double outlier = 0;       // a relative shift (-0.4: a night 40 % slower) of one history night of
                            // another scenario than the slowed one, mid-window; 0: none
  int trials = 2000;
  // The confirmation workflow: a night whose first run alarms (any scenario
  // regressed) is run `reruns` more times, as independent runs (fresh luck of
  // their own, from their own seeded stream so the draws of every other night
  // stay as they were), and alarms only if the judgement of all its runs
  // together (NightSeries::reruns) alarms too; 0: no confirmation.
  int reruns = 0;
  // The share of a night's between-night luck (variance) a rerun has in
  // common with the first run: 0 independent runs (the rule's assumption),
  // 0.5 the same noisy neighbour half there an hour later.
  double rerun_shares = 0;
  uint64_t seed = 20261201;
  NightlyRule rule;
  // The scenarios as simulated (from `noise`, or `scenarios` alike).
  std::vector<ScenarioNoise> scenario_noise() const;
};

struct PowerPoint {
  double slowdown = 0;           // of the slowed scenario, relative (0.15 = 15 % fewer samples/s)
  int slowed = 0;                // which scenario
  int trials = 0;
  int caught = 0;                // nights that scenario regressed (confirmed, with reruns)
  int whole_report_alarms = 0;   // nights any scenario regressed: for slowdown 0, the false alarms
  int first_alarms = 0;          // nights the first run alarmed (before confirmation; = whole_report_alarms without)
  double caught_rate() const { return trials ? static_cast<double>(caught) / trials : 0; }
  double alarm_rate() const { return trials ? static_cast<double>(whole_report_alarms) / trials : 0; }
};

// One point per slowdown, scenario `slowed` slowed; the same draws for every
// slowdown (common random numbers).
std::vector<PowerPoint> detection_curve(const PowerSetup& setup, const std::vector<double>& slowdowns, int slowed = 0);

// The smallest slowdown of scenario `slowed` that the rule catches in at
// least `power` of the simulated nights (bisection to 0.25 %, the same draws
// at every step); 1 when even a 95 % slowdown is not.
double min_detectable_slowdown(const PowerSetup& setup, int slowed, double power = 0.90);

// Exact (Clopper-Pearson) one-sided 95 % upper bound of a rate seen `k` times in `n`.
double rate_upper_bound(int k, int n, double level = 0.95);

}  // namespace ftb::stats
