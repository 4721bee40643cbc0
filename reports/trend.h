// A scenario's history as a trend: per run its median with a 95 % bootstrap
// interval, and the verdict of that run against the runs before it (the same
// rule and window as `regress`, reports/regress.h), for `history show`'s
// table and the trend chart (reports/trend_chart.h).
#pragma once

#include <string>
#include <vector>

#include "reports/history.h"
#include "reports/metrics.h"
#include "reports/regress.h"
#include "reports/statistics.h"

namespace ftb {

struct TrendPoint {
  HistoryRun run;
  stats::Interval median;  // of the run's repeats
  MetricVerdict verdict;   // against the previous `window` runs of its series
};

struct TrendOptions {
  int window = 20;
  int min_runs = 3;
  stats::RegressionRule rule;
};

// `series`: one scenario's runs, oldest first (HistoryStore::series).
std::vector<TrendPoint> trend(const std::vector<RunRepeats>& series, Metric m, const TrendOptions& o);

// "### <scenario>: <metric>" and a Markdown table: time, commit, machine,
// preset, config, repeats, median [95 % CI], verdict vs history.
std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points);

}  // namespace ftb
