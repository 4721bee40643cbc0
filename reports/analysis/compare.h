// Machines or builds side by side. The run is the unit: each side is one or
// more runs (processes, nights, machines) of the same configuration, and a
// ratio's interval is a Welch t interval over runs
// (reports/analysis/two_level.h): each side's run-to-run noise is its own,
// from its runs (two or more) and/or a calibrate noise file. A side of one
// run and no noise file: the ratio is shown and the verdict is "cannot
// tell", because repeats inside one process share its luck, a second process
// can erase what they show, and the other side's runs say nothing of this
// side's noise (two machines rarely share it).
// Verdicts over all rows of one comparison are held to a family-wise error
// by Holm's procedure. Pure functions of the reports; bench/cmd_compare.cpp
// prints and writes what they return.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/analysis/accuracy_verdict.h"
#include "reports/analysis/two_level.h"
#include "reports/analysis/resolution.h"
#include "reports/analysis/metrics.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/profile.h"
#include "reports/analysis/run_differences.h"
#include "reports/record/report.h"
#include "reports/analysis/statistics.h"
#include "reports/analysis/verdict.h"

namespace ftb {

// When B is called faster or slower than A (the output states it).
struct CompareRule {
  double level = 0.95;         // t interval of the ratio over runs
  double family_alpha = 0.05;  // Holm over every row (scenario x metric) of one comparison, two-sided
  double min_effect = 0.02;    // ratio >= 1 + min_effect (faster) or <= 1 - min_effect (slower)
};
std::string describe(const CompareRule& rule);  // one paragraph

// A row's verdict is verdict.h's, none where a side did not record the
// metric; compare's words for it: "faster" (better), "slower" (worse),
// "same within noise", "cannot tell" (cannot_tell, insufficient), "not
// recorded" (none).
using RowVerdict = std::optional<stats::Verdict>;
std::string compare_word(const RowVerdict& v);

// Why a verdict is "cannot tell" (verdict.h: no noise estimate, or the
// ratio's interval too wide).

struct MetricComparison {
  Metric metric = Metric::train_samples_per_s;
  RowVerdict verdict;
  stats::Interval ratio;           // exp(mean level B - mean level A), Welch t interval over runs; > 1 = B faster
  stats::LevelDifference levels;   // the test behind it
  double reference = 0, other = 0; // geometric means of the runs' medians
  int reference_runs = 0, other_runs = 0, reference_repeats = 0, other_repeats = 0;
  stats::Ruling why = stats::Ruling::settled;  // verdict.h's reason (cannot_tell: interval_too_wide(why))
  stats::Resolution resolution;       // interval_too_wide: the further runs that would settle it (modelled)
};

// B's runs against A's runs for one metric (each run its repeats). Verdict
// left for the caller's Holm step (compare_reports); not_recorded when a side
// has no run with every value positive (v1 reports have no steady samples).
MetricComparison compare_metric(Metric metric, const std::vector<std::vector<double>>& reference,
                                const std::vector<std::vector<double>>& other, const NoiseEstimate* noise,
                                const CompareRule& rule);

struct ScenarioComparison {
  std::string scenario;
  bool in_reference = false, in_other = false;
  Status reference_status = Status::ok, other_status = Status::ok;
  std::string reference_reason, other_reason;
  std::vector<std::string> notes;         // rows that ran differently: "world_size 2 vs 4", ...
  std::vector<MetricComparison> metrics;  // one per kRunMetrics (noise.h) when both are ok, else empty
  // Both sides carry an operator profile of the row (`run --profile`; with
  // several runs a side, each side's last run that has one): what accounts
  // for the change in the profiled step (reports/analysis/profile.h).
  std::optional<ProfileDiff> profile;
  // B's test accuracy against A's, example by example (accuracy_verdict.h):
  // each side's first run, where both kept per-example hits on a test split
  // of the same hash; by seed where both ran seed_per_repeat.
  std::optional<AccuracyVerdict> accuracy;
  bool both_ok() const { return !metrics.empty(); }
};

struct GeoMean {
  Metric metric = Metric::train_samples_per_s;
  stats::Interval ratio;                // per run the geometric mean over the scenarios, then B / A over runs
                                        // (--noise: the file's runs' geometric means give its run-to-run noise)
  stats::LevelDifference levels;
  std::vector<std::string> scenarios;   // the ones in it (ok in every run of both sides)
  std::string note;                     // why there is no interval (or no mean), else empty
  // The rows' rule over the geometric means (Holm over the metrics' means at
  // family_alpha, the minimum effect, cannot tell where the interval is too
  // wide); not_recorded where there is no mean.
  RowVerdict verdict;
  stats::Ruling why = stats::Ruling::settled;
  stats::Resolution resolution;
};

struct PairComparison {
  std::string reference_name, other_name;  // as given on the command line (a side of several runs: "r1, r2, r3")
  int reference_runs = 1, other_runs = 1;
  nlohmann::json reference_run, other_run;  // the first run's environment of each side (host, timestamp, commit)
  ConfigCheck config;
  EnvironmentDiff environment;
  std::vector<ScenarioComparison> scenarios;  // reference's order, then rows only the other has
  std::vector<GeoMean> geomeans;              // one per kRunMetrics
};

// One side: its runs (reports of one configuration) and how they were named.
struct Side {
  std::vector<Report> runs;
  std::vector<std::string> names;
  std::string label() const;  // the names joined
};
// Row b of report rb against row a of report ra, paired on the test split;
// nullopt where the splits' hashes differ or are unknown, or hits are missing.
std::optional<AccuracyVerdict> paired_accuracy_of(const Report& ra, const ScenarioResult& a, const Report& rb,
                                                  const ScenarioResult& b);
PairComparison compare_reports(const Side& reference, const Side& other, const CompareRule& rule = {},
                               const NoiseFile* noise = nullptr);

// Markdown for the console and compare.md; `forced`: the configs differed and
// --force compared anyway (the differences are printed at the top).
std::string compare_markdown(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced);
// compare.json: everything above, machine-readable ("schema": "ftbench.compare/3").
nlohmann::json compare_to_json(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced);

}  // namespace ftb
