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
  stats::DuetNoise noise;          // outlier_share and outlier; pair_sd set per line
  stats::DuetDesign design;
  int trials = 1000;
  uint64_t seed = 20261207;
};

void add_power_duet_flags(CLI::App* sub, DuetPowerArgs& a);
int power_duet(const DuetPowerArgs& a);

}  // namespace ftb
