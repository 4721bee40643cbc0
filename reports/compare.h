// Machines or builds side by side: the first report is the reference, every
// other report is compared with it scenario by scenario (throughput ratios
// with bootstrap intervals and a verdict), summarised by a geometric mean,
// with the configurations checked for comparability and the environments
// diffed. Pure functions of the reports; bench/cmd_compare.cpp prints and
// writes what they return.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"
#include "reports/metrics.h"
#include "reports/statistics.h"

namespace ftb {

// When B is called faster or slower than A (the output states it).
struct CompareRule {
  double level = 0.95;       // bootstrap CI of the ratio of medians
  double alpha = 0.05;       // one-sided Mann-Whitney, in the direction of the change
  double min_effect = 0.02;  // ratio >= 1 + min_effect (faster) or <= 1 - min_effect (slower)
  int min_repeats = 3;       // on each side; fewer: "n too small", no verdict
  int resamples = 4000;
  uint64_t seed = 20261130;
};
std::string describe(const CompareRule& rule);  // one paragraph

enum class Verdict { faster, slower, same, n_too_small, not_recorded };
std::string to_string(Verdict v);  // "faster", "slower", "same within noise", "n too small", "not recorded"

// The two throughputs compared, from each result's per-repeat samples.
// The metrics compared (reports/metrics.h names them).
inline constexpr Metric kMetrics[] = {Metric::train_samples_per_s, Metric::steady_samples_per_s};

struct MetricComparison {
  Metric metric = Metric::train_samples_per_s;
  Verdict verdict = Verdict::not_recorded;
  stats::Interval ratio;    // median(other) / median(reference), > 1 = other faster
  stats::RankTest rank;     // other against reference
  stats::Interval reference, other;  // medians over repeats (CIs unused in the output)
};

// other / reference for two samples of one metric. not_recorded when either
// side has no positive value (v1 reports have no steady-state samples).
MetricComparison compare_metric(Metric metric, const std::vector<double>& reference, const std::vector<double>& other,
                                const CompareRule& rule);

struct ScenarioComparison {
  std::string scenario;
  bool in_reference = false, in_other = false;
  Status reference_status = Status::ok, other_status = Status::ok;
  std::string reference_reason, other_reason;
  std::vector<std::string> notes;         // rows that ran differently: "world_size 2 vs 4", ...
  std::vector<MetricComparison> metrics;  // one per kMetrics when both are ok, else empty
  bool both_ok() const { return !metrics.empty(); }
};

struct GeoMean {
  Metric metric = Metric::train_samples_per_s;
  stats::Interval ratio;                // n = scenarios in it; NaN when none
  std::vector<std::string> scenarios;   // the ones in it
  std::string note;                     // why there is no interval (or no mean), else empty
};

// One config key that differs, or that only one report records.
struct KeyDifference {
  std::string key;  // dotted path: "max_steps", "workload.train_examples"
  nlohmann::json reference, other;  // null when absent from that side
};

struct ConfigCheck {
  std::vector<KeyDifference> differences;  // run-relevant keys both record, with different values
  std::vector<KeyDifference> only_one;     // keys one report does not record (an older ftbench): not compared
  bool comparable() const { return differences.empty(); }
};

// Keys that do not change what a row measures, so reports that differ in them
// are comparable: where the files went (out), how many repeats and which rows
// ran (repeats, scenarios: compare takes the rows both have, and the
// statistics account for n), input paths (model_dir, data, vocab: what was
// loaded is compared through workload.*), the time data preparation took
// (workload.prep_time_s) and the device index (config.device is compared as
// cpu / cuda / auto: cuda:0 and cuda:1 are the same kind of device).
extern const std::vector<std::string> kRunIrrelevantConfigKeys;
ConfigCheck check_configs(const nlohmann::json& reference, const nlohmann::json& other);
std::string describe(const KeyDifference& d);  // "preset ('smoke' vs 'mfu')"

struct EnvironmentDiff {
  std::vector<KeyDifference> differences;  // keys of the list below whose values differ
  std::vector<std::string> same;           // labels of those that agree
  std::vector<std::string> unrecorded;     // labels neither report records
};
// GPU names, driver, CUDA, cuDNN, NCCL, LibTorch, CPU model and cores,
// threads, compiler, build type, git commit and dirty flag, host, OS, BLAS,
// memory, and the measured fp32 matmul peak (what a VM's CPU really delivers).
// Absent keys read as "not recorded".
EnvironmentDiff diff_environments(const nlohmann::json& reference, const nlohmann::json& other);

struct PairComparison {
  std::string reference_name, other_name;  // as given on the command line
  nlohmann::json reference_run, other_run;  // the environments (host, timestamp, commit in the headers)
  ConfigCheck config;
  EnvironmentDiff environment;
  std::vector<ScenarioComparison> scenarios;  // reference's order, then rows only the other has
  std::vector<GeoMean> geomeans;              // one per kMetrics
};

PairComparison compare_reports(const Report& reference, const std::string& reference_name, const Report& other,
                               const std::string& other_name, const CompareRule& rule = {});

// Markdown for the console and compare.md; `forced`: the configs differed and
// --force compared anyway (the differences are printed at the top).
std::string compare_markdown(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced);
// compare.json: everything above, machine-readable ("schema": "ftbench.compare/1").
nlohmann::json compare_to_json(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced);

}  // namespace ftb
