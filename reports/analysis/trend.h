// A scenario's history as a trend: per run its median with an interval that
// states its coverage, the verdict `regress` gave that run's report as
// tonight against the runs before it (regress.h's judge_vs_history: the same
// window, key, family of scenarios and rule, so a night carries one verdict
// whichever command shows it), and the change points of each series
// (machine, preset, config) with what changed across each (suspects.h: the
// recorded facts that differ between the runs of the level before and of the
// level after; at a slowdown where a run on each side carries a profile of
// the row, the operators that grew, as `regress` names them), for `history
// show`'s table and the trend chart
// (reports/views/trend_chart.h).
#pragma once

#include <string>
#include <vector>

#include "reports/analysis/history.h"
#include "reports/analysis/metrics.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/statistics.h"
#include "reports/analysis/suspects.h"

namespace ftb {

struct TrendPoint {
  HistoryRun run;
  stats::Interval median;  // of the run's repeats (order statistics; coverage stated)
  MetricVerdict verdict;   // regress's row for it, its report as tonight (test_acc, peak_bytes: thresholds)
  bool change_point = false;  // a new level starts at this run (over the whole series)
  double step = 0;            // the level change there, relative
  WhatChanged what_changed;   // at a change point: the facts that differ between the levels' runs
};

struct TrendOptions {
  int window = 20;
  stats::NightlyRule rule;
  double accuracy_min_effect_points = 1;  // test_acc's paired judge (regress.h)
};

struct ScenarioTrend {
  std::string scenario;
  std::vector<TrendPoint> points;  // its runs, oldest first (HistoryStore::series)
};

// Each of `scenarios`' runs in `store`. A rate or time is judged as `regress`
// judged the run's report (its stored report.json) against the runs before
// it, all the report's scenarios together: each report once, however many
// scenarios are shown (N runs: N judgements of every scenario). test_acc and
// peak_bytes by their thresholds against the series' runs before it.
std::vector<ScenarioTrend> trends(const HistoryStore& store, const std::vector<std::string>& scenarios, Metric m,
                                  const TrendOptions& o);

// "### <scenario>: <metric>" and a Markdown table: time, commit, machine,
// preset, config, repeats, median [interval, coverage], verdict vs history,
// and the change points with their commit ranges.
std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points);

// "### <scenario>: duet jobs" and a Markdown table, oldest first: time,
// tonight's commit, the reference it was judged against, machine, mode,
// pairs, the change B / A with its interval, and the job's verdict (the
// duet's own judge, reports/analysis/duet.h: each job as it was judged).
std::string duet_trend_markdown(const std::string& scenario, const std::vector<DuetRatio>& ratios);

}  // namespace ftb
