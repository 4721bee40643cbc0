// ftbench power --duet: the duet's design (reports/analysis/duet_power.h)
// by simulation: for each correlation of the two sides (at once, taking
// turns, none) or each row of A/A duets (--duet-file), the whole job's false
// alarms, how often an A/A row reads same, the pairs a job runs and the
// minimum slowdown caught in 90 % of jobs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "reports/analysis/duet_power.h"

namespace ftb {

struct DuetPowerArgs {
  bool on = false;
  double side_sd = 0.05;
  std::vector<double> correlations = {0.92, 0.45, 0.0};
  std::vector<std::string> files;  // duet.json of A/A duets: each row's measured pair sd
  stats::DuetNoise noise{{0.022}, 0.125, 0.05};  // outlier_share and outlier; pair_sd set per line
  stats::DuetDesign design;
  int trials = 1000;
  uint64_t seed = 20261207;
};

// Each row of A/A duet.json files at its measured pair sd (InputError naming
// a file that cannot be read or is not a duet.json).
struct MeasuredPair {
  std::string file, mode, scenario;  // mode: "duet" | "sequential"
  double pair_sd = 0;
  double rotate_s = 0;  // the job's trades within a pair (0: none, or a record from before them)
};
std::vector<MeasuredPair> measured_pair_sds(const std::vector<std::string>& files);

// The smallest slowdown the design of `a` catches in 90 % of jobs at this
// pair sd (the row alone; a's outlier pairs on top), by simulation.
double duet_min_detectable_at(const DuetPowerArgs& a, double pair_sd);

void add_power_duet_flags(CLI::App* sub, DuetPowerArgs& a);
int power_duet(const DuetPowerArgs& a);

}  // namespace ftb
