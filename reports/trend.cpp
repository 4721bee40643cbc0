#include "reports/trend.h"

#include <cmath>
#include <cstdio>

#include "core/text/text_format.h"
#include "reports/intervals.h"

namespace ftb {

namespace {
constexpr uint64_t kSeed = 20261130;  // the report's own (reports/intervals.cpp): equal CIs for equal repeats
}

std::vector<TrendPoint> trend(const std::vector<RunRepeats>& series, Metric m, const TrendOptions& o) {
  std::vector<TrendPoint> out;
  for (size_t i = 0; i < series.size(); ++i) {
    const RunRepeats& now = series[i];
    TrendPoint p;
    p.run = now.run;
    p.median = stats::median_interval(metric_values(now.repeats, m), kSeed);
    std::vector<std::vector<RepeatSample>> window;  // newest first, as the store's window
    for (size_t j = i; j-- > 0 && static_cast<int>(window.size()) < o.window;) {
      const HistoryRun& r = series[j].run;
      if (r.machine == now.run.machine && r.preset == now.run.preset && r.config_hash == now.run.config_hash)
        window.push_back(series[j].repeats);
    }
    JudgeContext c;
    c.rule = o.rule;
    c.min_runs = o.min_runs;
    c.tolerance_points = accuracy_tolerance_points({{"preset", now.run.preset}});
    p.verdict = judge_metric(m, window, true, now.repeats, c);
    out.push_back(std::move(p));
  }
  return out;
}

std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points) {
  std::vector<std::vector<std::string>> rows = {
      {"time", "commit", "machine", "preset", "config", "repeats", "median [95 % CI] (" + metric_unit(m) + ")",
       "vs previous runs"}};
  for (const auto& p : points) {
    std::string verdict = to_string(p.verdict.outcome);
    if (p.verdict.outcome == Outcome::insufficient) verdict = "insufficient history";
    if (p.verdict.outcome == Outcome::regressed) verdict = "**regressed**";
    if (std::isfinite(p.verdict.change) && p.verdict.outcome != Outcome::insufficient) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " (%+.1f %%)", 100 * p.verdict.change);
      verdict += buf;
    }
    rows.push_back({p.run.time, p.run.git_commit, p.run.machine, p.run.preset, p.run.config_hash,
                    std::to_string(p.median.n), format_interval(p.median, "%.4g"), verdict});
  }
  return "### " + scenario + ": " + to_string(m) + "\n\n" +
         format_table(rows, {false, false, false, false, false, true, true, false}, TableStyle::markdown);
}

}  // namespace ftb
