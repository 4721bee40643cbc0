// `ftbench regress`: did tonight's report get worse than its history (or than
// one baseline report)? Per scenario and gate, one verdict, a Markdown summary
// fit for a CI log or a pull-request comment, and exit 1 when a gating metric
// regressed.
//
// The rules (one function, judge_metric, serves regress, `history show` and
// the trend charts):
//   throughput  train_samples_per_s, higher is better.
//     History: stats::judge() of tonight's repeats against every repeat of
//     the window (the last --window runs with the same machine, scenario,
//     preset and config hash): z-test against the history's robust spread at
//     alpha 0.005, Mann-Whitney agreeing at 0.05, change beyond the minimum
//     effect (3 %, raised to the calibrated noise floor with --noise). Fewer
//     than min_runs runs in the window: "insufficient history".
//     Baseline (one report): the noise cannot be estimated from one run of a
//     few repeats, so the rank test decides: Mann-Whitney at 0.05 plus the
//     minimum effect. With --noise the calibrated spread (cv_repeats) gives
//     the z-test too, and then 1-2 repeats suffice. When neither can reach
//     its level (3 vs 3 repeats: the smallest rank p-value is 0.05) the
//     verdict is "insufficient" and the output says why, never a guess.
//   accuracy    test_acc, median drop beyond the preset's accuracy tolerance
//               (2 points; 0.5 on paper; reports/intervals.h).
//   memory      peak_bytes, median growth beyond the minimum effect.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "reports/history.h"
#include "reports/metrics.h"
#include "reports/noise.h"
#include "reports/statistics.h"

namespace ftb {

enum class Gate { throughput, accuracy, memory };
std::string to_string(Gate g);
// "throughput,accuracy,memory" -> gates; InputError naming `flag`.
std::set<Gate> parse_gates(const std::string& csv, const std::string& flag);
Metric gate_metric(Gate g);

enum class Outcome { regressed, improved, same, insufficient };
std::string to_string(Outcome o);

struct JudgeContext {
  stats::RegressionRule rule;
  int min_runs = 3;                // history runs the statistical rule needs
  double tolerance_points = 2;     // accuracy
  const NoiseEstimate* noise = nullptr;  // calibrated noise of this scenario and metric, if any
};

struct MetricVerdict {
  std::string scenario;
  Metric metric = Metric::train_samples_per_s;
  bool gating = false;
  Outcome outcome = Outcome::insufficient;
  int reference_runs = 0, reference_n = 0, current_n = 0;
  double reference_median = std::numeric_limits<double>::quiet_NaN();
  double current_median = std::numeric_limits<double>::quiet_NaN();
  double change = std::numeric_limits<double>::quiet_NaN();  // current / reference - 1
  double p_noise = std::numeric_limits<double>::quiet_NaN();  // one-sided, towards worse
  double p_rank = std::numeric_limits<double>::quiet_NaN();
  std::string note;  // why insufficient, which rule decided
};

// `reference`: the window's runs (history) or one run (baseline), each its
// repeats; `from_history` chooses the rule.
MetricVerdict judge_metric(Metric m, const std::vector<std::vector<RepeatSample>>& reference, bool from_history,
                           const std::vector<RepeatSample>& current, const JudgeContext& ctx);

struct RegressOptions {
  int window = 20;
  int min_runs = 3;
  std::set<Gate> fail_on = {Gate::throughput};
  stats::RegressionRule rule;
  const NoiseFile* noise = nullptr;
  std::string noise_path;  // for messages
  std::string machine;     // overrides the derived machine key
};

struct RegressSummary {
  std::string current, reference;  // what was compared, in words
  std::string rule;                // the rule, in words
  bool from_history = true;
  std::vector<MetricVerdict> rows;
  std::vector<std::string> notes;
  bool regressed() const;  // a gating row regressed
};

// InputError naming the current file when its preset or config differs from
// every run of its machine in the history (and what differs), or when it
// holds NaN or negative measurements.
RegressSummary regress_vs_history(const HistoryStore& store, const std::string& store_path,
                                  const nlohmann::json& current_json, const std::string& current_where,
                                  const RegressOptions& options);
RegressSummary regress_vs_baseline(const nlohmann::json& baseline_json, const std::string& baseline_where,
                                   const nlohmann::json& current_json, const std::string& current_where,
                                   const RegressOptions& options);

std::string regress_markdown(const RegressSummary& s);

// Keys (dotted paths) whose values differ between two configs as
// config_hash sees them: "lr: 0.001 -> 0.002".
std::vector<std::string> config_differences(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace ftb
