#include "reports/analysis/trend.h"

#include <cmath>
#include <cstdio>

#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"

namespace ftb {

namespace {

bool same_series(const HistoryRun& a, const HistoryRun& b) {
  return a.machine == b.machine && a.preset == b.preset && a.config_hash == b.config_hash;
}

bool by_threshold(Metric m) { return m == Metric::test_acc || m == Metric::peak_bytes; }

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * v);
  return buf;
}

}  // namespace

std::vector<TrendPoint> trend(const std::vector<RunRepeats>& series, Metric m, const TrendOptions& o) {
  std::vector<TrendPoint> out;
  for (size_t i = 0; i < series.size(); ++i) {
    const RunRepeats& now = series[i];
    TrendPoint p;
    p.run = now.run;
    p.median = stats::median_interval(metric_values(now.repeats, m));
    std::vector<RunRepeats> window;  // oldest first, the last `window` of its series
    for (size_t j = i; j-- > 0 && static_cast<int>(window.size()) < o.window;)
      if (same_series(series[j].run, now.run)) window.insert(window.begin(), series[j]);
    p.verdict.metric = m;
    if (by_threshold(m)) {
      JudgeContext c;
      c.min_effect = o.rule.min_effect;
      c.tolerance_points = accuracy_tolerance_points({{"preset", now.run.preset}});
      std::vector<std::vector<RepeatSample>> reps;
      for (const auto& w : window) reps.push_back(w.repeats);
      p.verdict = judge_threshold(m, reps, true, now.repeats, c);
    } else if (window.empty()) {
      p.verdict.note = "no earlier run of its series";
    } else {
      std::vector<MetricVerdict*> rows = {&p.verdict};
      judge_series(rows, {window}, {now.repeats}, o.rule, {nullptr});
    }
    out.push_back(std::move(p));
  }
  // Change points over each whole series (machine, preset, config).
  if (!by_threshold(m)) {
    std::vector<bool> done(series.size(), false);
    for (size_t i = 0; i < series.size(); ++i) {
      if (done[i]) continue;
      std::vector<size_t> members;
      std::vector<double> levels;
      for (size_t j = i; j < series.size(); ++j)
        if (same_series(series[j].run, series[i].run)) {
          done[j] = true;
          members.push_back(j);
          levels.push_back(stats::run_level(metric_values(series[j].repeats, m)));
        }
      for (const auto& c : stats::change_points(levels, o.rule.change_points)) {
        TrendPoint& at = out[members[static_cast<size_t>(c.index)]];
        at.change_point = true;
        at.step = std::expm1(c.after - c.before);
      }
    }
  }
  return out;
}

std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points) {
  std::vector<std::vector<std::string>> rows = {{"time", "commit", "machine", "preset", "config", "repeats",
                                                 "median [interval, coverage] (" + metric_unit(m) + ")",
                                                 "vs previous runs", "change point"}};
  std::vector<std::string> steps;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::string verdict = to_string(p.verdict.outcome);
    if (p.verdict.outcome == Outcome::insufficient) verdict = "insufficient history";
    if (p.verdict.outcome == Outcome::regressed) verdict = "**regressed**";
    if (std::isfinite(p.verdict.change) && p.verdict.outcome != Outcome::insufficient)
      verdict += " (" + percent(p.verdict.change) + ")";
    std::string cp;
    if (p.change_point) {
      cp = "**step " + percent(p.step) + "**";
      // The previous run of its series: the commit range of the step.
      std::string from = "?";
      for (size_t j = i; j-- > 0;)
        if (same_series(points[j].run, p.run)) {
          from = points[j].run.git_commit + " (" + points[j].run.time + ")";
          break;
        }
      steps.push_back(percent(p.step) + " between " + from + " and " + p.run.git_commit + " (" + p.run.time + ")");
    }
    rows.push_back({p.run.time, p.run.git_commit, p.run.machine, p.run.preset, p.run.config_hash,
                    std::to_string(p.median.n), format_interval(p.median, "%.4g"), verdict, cp});
  }
  std::string out = "### " + scenario + ": " + to_string(m) + "\n\n" +
                    format_table(rows, {false, false, false, false, false, true, true, false, false},
                                 TableStyle::markdown);
  if (!steps.empty()) {
    out += "\nChange points (E-divisive means + t-test over each series' run medians):\n";
    for (const auto& s : steps) out += "- " + s + "\n";
  }
  return out;
}

}  // namespace ftb
