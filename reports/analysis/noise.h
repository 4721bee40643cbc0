// Calibration: how noisy one configuration is on one machine, measured by
// A/A runs (`ftbench calibrate`: the same config in K separate processes),
// written to noise.json (schema ftbench.noise/2; /1 files still read), which
// `regress --noise` and `compare --noise` read as the run-to-run noise.
//
// Per scenario and metric (log scale, so the figures are relative):
//   run_cv      sd of the runs' levels (median of each run's repeats): what
//               separates two runs of one build; its df = runs - 1;
//   within_cv   sd of one repeat around its run (pooled within runs): the
//               only noise repeats inside one process can see;
//   between_cv  the part of run_cv that no number of repeats removes
//               (reports/analysis/two_level.h);
//   speedup_cv  sd over runs of the log speed-up against baseline (both rows
//               of one run share its luck, so this is not run_cv of either):
//               what a speed-up in one report can move by in the next run;
//               its df = runs with both rows - 1 (absent for baseline);
//   min_detectable_change
//               the smallest slowdown the nightly rule catches 90 % of the
//               time, with this many repeats a night, `window` nights of
//               history and every scenario of the calibration in the report,
//               each at its own noise: simulated through judge_nights
//               (power.h, kMinDetectableTrials nights a point), never below
//               the rule's minimum effect.
// And the rule proved on the runs themselves (aa_check): every run judged
// as tonight against the others as its history (the regress rule), and
// every pair of runs compared one against one with the noise of the others
// (the compare rule): the observed whole-report false alarms.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "reports/analysis/nightly.h"
#include "reports/analysis/power.h"
#include "reports/analysis/history.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/metrics.h"
#include "reports/analysis/statistics.h"

namespace ftb {

inline constexpr const char* kNoiseSchema = "ftbench.noise/2";
inline constexpr const char* kNoiseSchemaV1 = "ftbench.noise/1";
inline constexpr int kMinDetectableTrials = 400;  // simulated nights per point of the search
inline constexpr const char* kNoiseBaseline = "baseline";  // the row speed-ups are measured against

struct NoiseEstimate {
  int runs = 0, repeats = 0;  // runs with the scenario ok; repeats over all of them
  std::vector<double> run_medians;
  double run_cv = 0, run_df = 0;
  double within_cv = 0, between_cv = 0, between_share = 0;
  double min_detectable_change = 0;
  double speedup_cv = std::numeric_limits<double>::quiet_NaN();  // NaN: not measured (baseline itself, an old file)
  double speedup_df = 0;
};
// The run-to-run noise a comparison adds to its own estimate.
stats::KnownNoise known_noise(const NoiseEstimate& e);

// The rule run on the A/A runs themselves.
struct AaCheck {
  int regress_nights = 0, regress_alarms = 0;  // runs judged as tonight vs the others (a row judged at least); alarmed
  std::vector<std::string> regress_alarmed;    // "run-3: baseline"
  int compare_pairs = 0, compare_verdicts = 0; // pairs with a row judged (noise from >= 2 other runs); with a verdict
  std::vector<std::string> compare_flagged;
};

struct NoiseFile {
  RunKey key;  // what it was measured on
  int runs = 0;
  int window = 20;
  int series = 1;  // gated series a report holds (for the minimum detectable change)
  stats::NightlyRule rule;
  std::map<std::string, std::map<Metric, NoiseEstimate>> scenarios;
  AaCheck aa;
  bool has_aa = false;
};

// From the reports of the A/A runs (the same config each time), in run order.
// Leaves min_detectable_change at 0: set_min_detectable_changes fills it.
NoiseFile estimate_noise(const std::vector<Report>& runs, const RunKey& key, const stats::NightlyRule& rule,
                         int window = 20);
// Each estimate's min_detectable_change, by simulation through the nightly
// rule (seconds: a bisection of kMinDetectableTrials simulated nights a step
// per scenario and metric).
void set_min_detectable_changes(NoiseFile& n);

// What a calibration says a nightly report looks like to the simulation
// (power.h): every scenario of `n` with an estimate of `m`, in the file's
// order, at its own within_cv and between_cv, and the calibration's repeats
// a run (rounded mean; the PowerSetup default where it holds no runs). The
// one source of `power --noise` and of the minimum detectable changes.
stats::PowerSetup calibrated_power_setup(const NoiseFile& n, Metric m);
// The nightly and compare rules on the A/A runs (see above).
AaCheck aa_check(const std::vector<Report>& runs, const stats::NightlyRule& rule);

nlohmann::json to_json(const NoiseFile& n);
// InputError naming `path` (missing, not JSON, wrong schema, missing key).
NoiseFile read_noise_file(const std::string& path);
// The same from its JSON (a report's run_noise); InputError naming `where`.
NoiseFile noise_from_json(const nlohmann::json& j, const std::string& where);
// The noise file as a report keeps it (Report::run_noise): its JSON plus "source".
nlohmann::json run_noise_json(const NoiseFile& n, const std::string& source);
// nullptr when the file has no estimate for it.
const NoiseEstimate* find_noise(const NoiseFile& n, const std::string& scenario, Metric m);

// A report's speed-ups of `r` (speedups_vs) with the run-to-run noise of a
// calibrate file: estimate x exp(+-t(0.975, speedup_df) x speedup_cv) per
// speed-up (end-to-end: the train_samples_per_s estimate; steady: the steady
// one), method t_run_noise, coverage 0.95 (n = the file's runs). A speed-up
// the file has no noise for keeps its within-run interval; `replaced` counts
// those that got one.
Speedups with_run_noise(Speedups s, const std::string& scenario, const NoiseFile& noise, int* replaced = nullptr);

// The metrics calibrate, compare and regress judge by runs: the throughputs.
inline constexpr Metric kRunMetrics[] = {Metric::train_samples_per_s, Metric::steady_samples_per_s};

}  // namespace ftb
