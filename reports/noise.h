// Calibration: how noisy one configuration is on one machine, measured by
// A/A runs (`ftbench calibrate`: the same config N times) and written to
// noise.json, which `regress --noise` reads.
//
// Per scenario and metric:
//   cv_run_medians  robust CV (stats::robust_cv: 1.4826 MAD / median) of the
//                   N runs' medians: how far two runs of the same build drift;
//   cv_repeats      robust CV of all repeats of all runs pooled: the noise a
//                   z-test sees (~ sigma of the log values);
//   noise_floor     2 x cv_run_medians: a change smaller than what separates
//                   A/A runs is noise; `regress --noise` raises its minimum
//                   effect to it;
//   min_detectable_change
//                   the smallest relative change the regress rule (one-sided
//                   z at rule.alpha) catches 95 % of the time with this
//                   many repeats a night against a window of `window` such
//                   nights: (z_{1-alpha} + z_{0.95}) sigma sqrt(1/n + 1/(W n)),
//                   sigma = cv_repeats, and never below the minimum effect or
//                   the noise floor.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "reports/history.h"
#include "reports/metrics.h"
#include "reports/statistics.h"

namespace ftb {

inline constexpr const char* kNoiseSchema = "ftbench.noise/1";

struct NoiseEstimate {
  int runs = 0, repeats = 0;  // runs with the scenario ok; repeats over all of them
  std::vector<double> run_medians;
  double cv_run_medians = 0, cv_repeats = 0;
  double noise_floor = 0, min_detectable_change = 0;
};

struct NoiseFile {
  RunKey key;  // what it was measured on
  int runs = 0;
  int window = 20;
  stats::RegressionRule rule;
  std::map<std::string, std::map<Metric, NoiseEstimate>> scenarios;
};

// From the reports of the A/A runs (the same config each time).
NoiseFile estimate_noise(const std::vector<Report>& runs, const RunKey& key, const stats::RegressionRule& rule,
                         int window = 20);
nlohmann::json to_json(const NoiseFile& n);
// InputError naming `path` (missing, not JSON, wrong schema, missing key).
NoiseFile read_noise_file(const std::string& path);
// nullptr when the file has no estimate for it.
const NoiseEstimate* find_noise(const NoiseFile& n, const std::string& scenario, Metric m);

}  // namespace ftb
