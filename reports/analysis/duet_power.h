// The duet's design by simulation: jobs judged through judge_look
// (duet.h) at the design's looks, as `ftbench duet` judges them, on noise
// given per row as the sd of a pair's log ratio. `ftbench power --duet`
// prints it; tests/test_duet.cpp holds the design to the rates duet.h
// states with it. Deterministic for a seed.
//
// The simulated pair: row r's log ratio is change_r + pair_sd_r z, and in
// `outlier_share` of the pairs one side alone had other work on its cores:
// every row of that pair moves by `outlier` toward that side's loss (either
// side, even odds). A pair's sd from each side's run-to-run sd s and the
// correlation rho of the two sides' logs: s sqrt(2 (1 - rho)) (pair_sd()):
// the higher the correlation the duet reaches, the less of s is left
// (independent runs: sqrt(2) s; the measured correlations: docs/statistics.md).
#pragma once

#include <cstdint>
#include <vector>

#include "reports/analysis/duet.h"

namespace ftb::stats {

struct DuetNoise {
  std::vector<double> pair_sd = {0.022};  // per row, of the pair's log ratio
  double outlier_share = 0;
  double outlier = 0.05;
};

double pair_sd(double side_sd, double correlation);

struct DuetJobs {
  int trials = 0;
  int any_call = 0;                  // jobs with a worse or better on any row
  std::vector<int> worse, better, same;  // per row, jobs ending so
  double mean_pairs = 0;             // pairs a job ran, on average
  double rate(int k) const { return trials ? static_cast<double>(k) / trials : 0; }
};

// `trials` jobs with row r's true change change[r] (relative: -0.05 is 5 %
// slower); the same draws for the same seed.
DuetJobs simulate_duet_jobs(const DuetNoise& noise, const std::vector<double>& change, const DuetDesign& design,
                            int trials, uint64_t seed);

// The smallest slowdown of row `row` alone that the design calls worse in at
// least `power` of the jobs (bisection to 0.25 %, common random numbers); 1
// when even 95 % is not.
double duet_min_detectable(const DuetNoise& noise, int row, const DuetDesign& design, double power = 0.90,
                           int trials = 1000, uint64_t seed = 20261207);

}  // namespace ftb::stats
