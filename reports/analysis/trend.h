// A scenario's history as a trend: per run its median with an interval that
// states its coverage, the verdict of that run against the runs before it of
// its series (the nightly rule of `regress`, reports/analysis/nightly.h),
// and the change points of each series (machine, preset, config), for
// `history show`'s table and the trend chart (reports/views/trend_chart.h).
#pragma once

#include <string>
#include <vector>

#include "reports/analysis/history.h"
#include "reports/analysis/metrics.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/statistics.h"

namespace ftb {

struct TrendPoint {
  HistoryRun run;
  stats::Interval median;  // of the run's repeats (order statistics; coverage stated)
  MetricVerdict verdict;   // against the previous `window` runs of its series
  bool change_point = false;  // a new level starts at this run (over the whole series)
  double step = 0;            // the level change there, relative
};

struct TrendOptions {
  int window = 20;
  stats::NightlyRule rule;
};

// `series`: one scenario's runs, oldest first (HistoryStore::series).
std::vector<TrendPoint> trend(const std::vector<RunRepeats>& series, Metric m, const TrendOptions& o);

// "### <scenario>: <metric>" and a Markdown table: time, commit, machine,
// preset, config, repeats, median [interval, coverage], verdict vs history,
// and the change points with their commit ranges.
std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points);

}  // namespace ftb
