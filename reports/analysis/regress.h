// `ftbench regress`: did tonight's report get worse than its history (or
// than baseline runs)? Per scenario and gate, one verdict, a Markdown summary
// fit for a CI log or a pull-request comment, and exit 1 when a gating metric
// regressed.
//
// The rules:
//   throughput  train_samples_per_s, higher is better. The run is the unit:
//     History: the nightly rule (reports/analysis/nightly.h): tonight's
//     level (median of its repeats) against the nights since the series'
//     last change point, a t-test with within-run and between-night noise,
//     Holm over every scenario of the report at family_alpha, and a change
//     beyond the minimum effect. A step the history already shows is named
//     once with its commit range and not failed again.
//     Baseline (one or more reports): tonight's level against the baseline
//     runs' levels (two_level.h's compare_levels): the run-to-run noise from
//     the baseline runs (two or more) and/or a calibrate noise file; with one
//     baseline run and no noise file nothing estimates it, and the verdict is
//     "cannot tell from one run a side", never a guess from repeats. A row
//     the test does not call is "same" only where the change's 95 %
//     interval rules out a change beyond the minimum effect; else "cannot
//     tell", naming the further runs that would settle it (resolution.h).
//   Tonight may be several runs (`--current R1 R2 ...`, a confirmation rerun
//     after a first alarm): independent runs of one machine, preset and
//     config, each its own level; the history rule takes the mean of their
//     levels with a run level's variance over their number (nightly.h), the
//     baseline rule compares the two sides' runs (two_level.h). The
//     thresholds below use the runs' pooled repeats.
//   Beside each regressed row: what changed (suspects.h) between the runs
//     its reference level came from and tonight's runs; where the newest
//     reference run with a profile of the row (`run --profile`) and one of
//     tonight's runs carry one, the operators whose time a profiled step grew
//     (largest change first, at most three).
//   accuracy    test_acc: tonight's first repeat against the newest reference run's,
//               example by example (exact McNemar, Newcombe's interval), against
//               accuracy_min_effect points; insufficient where hits were not kept
//               (2 points; 0.5 on paper; reports/analysis/intervals.h).
//   memory      peak_bytes, median growth beyond the minimum effect.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reports/analysis/history.h"
#include "reports/analysis/run_differences.h"
#include "reports/analysis/metrics.h"
#include "reports/analysis/nightly.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/resolution.h"
#include "reports/analysis/statistics.h"
#include "reports/analysis/suspects.h"
#include "reports/analysis/verdict.h"

namespace ftb {

enum class Gate { throughput, accuracy, memory };
std::string to_string(Gate g);
// "throughput,accuracy,memory" -> gates; InputError naming `flag`.
std::set<Gate> parse_gates(const std::string& csv, const std::string& flag);
Metric gate_metric(Gate g);

// A row's verdict is verdict.h's (worse: regressed, the only one that fails
// the gate; cannot_tell: the row names what would settle it); these are
// regress's words for it.
std::string to_string(stats::Verdict v);  // "regressed", "improved", "same", "insufficient", "cannot tell"

// The rules beside throughput's: memory by its median against min_effect
// (no test); accuracy paired, example by example, against min_effect in
// points (accuracy_verdict.h).
struct JudgeContext {
  double min_effect = 0.03;              // memory
  double accuracy_min_effect_points = 1;  // accuracy (the current report's accuracy_min_effect)
  // The current report retrained each repeat with its own seed (a series
  // shares the config, so its runs did too): accuracy is judged over the
  // seeds, repeat i against the reference run's repeat i.
  bool seeds_per_repeat = false;
};

struct MetricVerdict {
  std::string scenario;
  Metric metric = Metric::train_samples_per_s;
  bool gating = false;
  stats::Verdict outcome = stats::Verdict::insufficient;
  int reference_runs = 0, reference_n = 0, current_n = 0;
  double reference_median = std::numeric_limits<double>::quiet_NaN();
  double current_median = std::numeric_limits<double>::quiet_NaN();
  double change = std::numeric_limits<double>::quiet_NaN();  // current / reference - 1
  double p = std::numeric_limits<double>::quiet_NaN();  // one-sided t towards worse, before Holm
  double df = 0;
  double se = std::numeric_limits<double>::quiet_NaN();  // of log(current / reference), where a t-test ran
  int level_runs = 0;  // runs behind the reference level (nights since the last change point)
  std::string note;    // why insufficient, which rule decided: words for a reader, never parsed
  // Why the row stays open, as data the views render (verdict.h; they
  // never read `note`); where interval_too_wide, `why_open` says why and
  // what would settle it.
  stats::Ruling why = stats::Ruling::settled;  // open where interval_too_wide(why) or no_noise_estimate
  std::string why_open;
  bool judged = true;  // false: nothing to judge it by (accuracy without per-example hits on both sides)
  std::vector<std::string> steps;  // level changes the history shows: "-15.2 % from c3 (time) to c4 (time)"
  std::vector<std::string> left_out;  // history runs without a value > 0, left out of a judged row
  int current_runs = 1;                 // tonight's runs behind current_n
  std::vector<size_t> reference_index;  // the reference runs (index into the row's window) behind its level
  // cannot_tell rows: the further runs that would settle them (resolution.h;
  // modelled from the measured noise): the baseline rule's plan ...
  stats::Resolution resolution;
  // ... or the nightly rule's (nightly.h): further nights of history or runs
  // tonight, either one alone, or both together where `jointly`; -1: none
  // within the rule's bounds.
  int more_nights = -1, more_runs = -1;
  bool jointly = false;
  // Regressed rows: the facts that differ between those reference runs and
  // tonight's runs, most decisive first, then (throughput rows with profiles
  // on both sides) the operators that grew.
  WhatChanged what_changed;
};

// The threshold rules for accuracy and memory: `reference` the runs'
// repeats, `from_history` only words the "nothing to compare" note.
MetricVerdict judge_threshold(Metric m, const std::vector<std::vector<RepeatSample>>& reference, bool from_history,
                              const std::vector<RepeatSample>& current, const JudgeContext& ctx);
// Tonight's throughput rows of a report against their series (history,
// oldest first): the nightly rule over all of them at once (Holm), the
// verdicts in the rows' order. Each row's scenario and gating are kept.
// `reruns`: per row, tonight's further runs (empty: one run tonight).
void judge_series(std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& history,
                  const std::vector<std::vector<RepeatSample>>& tonight, const stats::NightlyRule& rule,
                  const std::vector<const NoiseEstimate*>& noise,
                  const std::vector<std::vector<std::vector<RepeatSample>>>& reruns = {});

struct RegressOptions {
  int window = 20;
  std::set<Gate> fail_on = {Gate::throughput};
  // The throughput gate's metric: `history show --metric` judges the other
  // rates and times (steady_samples_per_s, wall_time_s, step_ms_median) by
  // the same rule.
  Metric throughput = Metric::train_samples_per_s;
  stats::NightlyRule rule;  // min_nights, family_alpha, min_effect, change points
  const NoiseFile* noise = nullptr;
  std::string noise_path;  // for messages
  std::string machine;     // overrides the derived machine key
};

// A report as read, with where it came from (for messages).
struct NamedReport {
  nlohmann::json json;
  std::string where;
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
// Tonight as several runs (the first's scenarios are judged; each further
// run of the same machine, preset and config, InputError naming it if not).
RegressSummary regress_vs_history(const HistoryStore& store, const std::string& store_path,
                                  const std::vector<NamedReport>& tonight, const RegressOptions& options);
// The rows `regress --history` gives `current`: every ok scenario against
// its window of `store` (HistoryStore::window: the newest o.window runs of
// `key` with repeats of it, leaving out `exclude`, and with `before` only the
// runs before that one), throughput by the nightly rule over every scenario
// with history at once (judge_series: pooled noise, Holm), accuracy and
// memory by their thresholds; notes for scenarios not run. regress_vs_history
// is this after its checks; `history show` (trend.h) is this for each run as
// tonight, `before` it, so both give a night the same verdict.
RegressSummary judge_vs_history(const HistoryStore& store, const Report& current, const RunKey& key,
                                const std::string& exclude, const HistoryRun* before, const RegressOptions& o);
// The same for tonight's several runs (`where` names them in notes), leaving
// out every run of `exclude`.
RegressSummary judge_vs_history(const HistoryStore& store, const std::vector<Report>& current,
                                const std::vector<std::string>& where, const RunKey& key,
                                const std::vector<std::string>& exclude, const HistoryRun* before,
                                const RegressOptions& o);

// One or more baseline runs (reports of the same preset and config).
RegressSummary regress_vs_baseline(const std::vector<NamedReport>& baselines, const nlohmann::json& current_json,
                                   const std::string& current_where, const RegressOptions& options);
RegressSummary regress_vs_baseline(const std::vector<NamedReport>& baselines, const std::vector<NamedReport>& tonight,
                                   const RegressOptions& options);

// A stored run's report, read as every reader of the store reads it
// (report_from_json, upgrades included; errors name the history run).
Report stored_report(const HistoryStore& store, const HistoryRun& run);
// The profile of `scenario` in a history run's stored report (nullopt: none).
std::optional<OpProfile> stored_profile(const HistoryStore& store, const HistoryRun& run, const std::string& scenario);

std::string regress_markdown(const RegressSummary& s);
// The machine-readable summary (`regress --json FILE`), schema
// "ftbench.regress/2" as compare.json's "ftbench.compare/N": per row the
// verdict, the levels, the change with its 95 % interval (t on the log
// levels at the test's df, not adjusted for Holm; null where no test ran),
// p and what changed (suspects.h's what_changed_json); where the verdict is
// "cannot tell", cannot_tell_reason ("interval too wide", or "no noise
// estimate" for an insufficient row of one run a side) and, for a wide
// interval, settle (the further runs a side that would narrow it below the
// minimum effect, modelled); the rule, the notes and whether a gating row
// regressed (the exit code). Version 2 added "cannot tell" and those keys.
nlohmann::json regress_to_json(const RegressSummary& s);

}  // namespace ftb
