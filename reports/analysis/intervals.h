// Every figure over repeats with its uncertainty: medians with order-statistic
// intervals that state their coverage (reports/analysis/statistics.h; within one run:
// they see the within-run noise only) for wall time, throughput and
// steady-state step time, the step
// time's p50/p90/p99, and the two speed-ups against baseline (end-to-end, the
// reference's definition: wall time; steady-state: throughput of the median
// step after warm-up), each an interval of a ratio of medians with its coverage.
// Pure functions of the results' per-repeat samples; written into report.json
// beside each result ("intervals", "speedup") and shown in the table.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "reports/analysis/accuracy.h"
#include "reports/analysis/statistics.h"
#include "reports/record/report.h"

namespace ftb {

// Baseline wall time / r's wall time when both trained on the same number of
// samples (within 1 %); otherwise (a step cap with N ranks trains N times the samples) the
// ratio of training samples/s, and speedup_from_throughput() says so (the
// table marks it "*"). nullopt when r is not ok, or the baseline is missing,
// not ok, or has no positive figure.
bool speedup_from_throughput(const Report& report, const ScenarioResult& r, const std::string& baseline = "baseline");
std::optional<double> speedup_vs_baseline(const Report& report, const ScenarioResult& r,
                                          const std::string& baseline = "baseline");

struct Speedups {
  stats::Interval end_to_end;    // baseline wall time / row's (or samples/s ratio, by_throughput)
  stats::Interval steady_state;  // row's steady samples/s / baseline's
  bool by_throughput = false;    // end-to-end from samples/s: the rows trained on different sample counts
  bool paired = false;           // per-round ratios (see repeats_in_rounds)
};
// Whether the run's repeats ran in rounds (environment.repeats.order ==
// "rounds", scenarios/sweep.h): the i-th repeats of two rows ran back to back
// and share the machine's drift, so their ratio is taken per round.
// Reports of older runs (rows one after the other) are unpaired.
bool repeats_in_rounds(const Report& report);

// nullopt when the row or the baseline is not ok or has no repeats.
std::optional<Speedups> speedups_vs(const Report& report, const ScenarioResult& r, const std::string& baseline);

// {"wall_time_s": {...}, "train_samples_per_s": {...}, "step_ms": {..., "p50", "p90", "p99"}}
nlohmann::json result_intervals(const ScenarioResult& r);
nlohmann::json to_json(const stats::Interval& i);

// A row's test accuracy as k correct of the n examples scored, with its 95 %
// Wilson interval in points (reports/analysis/accuracy.h). n is the test
// split's size (config.workload.test_examples) where evaluation scored it
// whole (eval_max_batches 0); nullopt where that n is unknown or the
// accuracy is not k / n for it (a capped evaluation, an older report without
// the split's size): no interval is then better than a wrong one.
std::optional<stats::AccuracyInterval> test_accuracy_interval(const Report& report, const ScenarioResult& r);
// "82.17 [79.0, 85.0]" (points, 95 % Wilson), the accuracy alone where no
// interval is known; "-" for NaN.
std::string format_accuracy(const Report& report, const ScenarioResult& r);
// The console's compact form: "82.2 +-3.1", the +- the farther end of that
// 95 % Wilson interval from the point (so [point - h, point + h] covers it);
// "82.17" where no interval is known; "-" for NaN.
std::string format_accuracy_compact(const Report& report, const ScenarioResult& r);

// "1.17x [1.10, 1.25]" at 95 % coverage, "1.17x [1.10, 1.25; 75 %]" otherwise
// (one repeat: "1.17x"), "1.17x [1.05, 1.30; r2r]" with a calibrated
// run-to-run noise (t_run_noise, 95 %); "*" after x when by throughput.
std::string format_interval(const stats::Interval& i, const char* fmt, const char* suffix = "");

}  // namespace ftb
