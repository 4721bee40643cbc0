#include "reports/analysis/trend.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"

namespace ftb {

namespace {

bool same_series(const HistoryRun& a, const HistoryRun& b) {
  return a.machine == b.machine && a.preset == b.preset && a.config_hash == b.config_hash;
}

bool by_threshold(Metric m) { return m == Metric::test_acc || m == Metric::peak_bytes; }

// The rows `regress` gave each run's report as tonight, judged on first use
// and kept: one judgement per report whatever the number of scenarios shown.
class NightVerdicts {
 public:
  NightVerdicts(const HistoryStore& store, Metric m, const TrendOptions& o) : store_(store) {
    options_.window = o.window;
    options_.rule = o.rule;
    options_.throughput = m;
  }

  MetricVerdict of(const HistoryRun& run, const std::string& scenario) {
    auto it = rows_.find(run.id);
    if (it == rows_.end()) {
      const Report report = stored_report(store_, run);
      const RunKey key{run.machine, run.preset, run.config_hash};
      it = rows_.emplace(run.id, judge_vs_history(store_, report, key, run.report_hash, &run, options_).rows).first;
    }
    for (const auto& v : it->second)
      if (v.scenario == scenario && v.metric == options_.throughput) return v;
    MetricVerdict v;  // not reached: the store keeps repeats of a report's ok scenarios only
    v.scenario = scenario;
    v.metric = options_.throughput;
    v.note = "not an ok scenario of its report";
    return v;
  }

 private:
  const HistoryStore& store_;
  RegressOptions options_;
  std::map<int64_t, std::vector<MetricVerdict>> rows_;  // run id -> regress's rows
};

// test_acc and peak_bytes: the median against the series' last `window` runs
// before run i, by its threshold.
MetricVerdict threshold_verdict(const std::vector<RunRepeats>& series, size_t i, Metric m, const TrendOptions& o) {
  const RunRepeats& now = series[i];
  std::vector<std::vector<RepeatSample>> window;  // oldest first
  for (size_t j = i; j-- > 0 && static_cast<int>(window.size()) < o.window;)
    if (same_series(series[j].run, now.run)) window.insert(window.begin(), series[j].repeats);
  JudgeContext c;
  c.min_effect = o.rule.min_effect;
  c.accuracy_min_effect_points = o.accuracy_min_effect_points;
  return judge_threshold(m, window, true, now.repeats, c);
}

// At a change point: the operators that grew (suspects.h's
// add_operator_suspects, as regress names them) between the newest run of
// the level before and the oldest run of the level after that carry a
// profile of the row (`run --profile`); nothing when a side has none.
void add_change_point_operators(WhatChanged& w, const HistoryStore& store, const std::string& scenario,
                                const std::vector<RunRepeats>& series, const std::vector<size_t>& before,
                                const std::vector<size_t>& after, double measured_growth) {
  std::optional<OpProfile> a, b;
  std::string a_from, b_from;
  for (auto k = before.rbegin(); k != before.rend() && !a; ++k)
    if ((a = stored_profile(store, series[*k].run, scenario))) a_from = series[*k].run.source;
  if (!a) return;
  for (auto k = after.begin(); k != after.end() && !b; ++k)
    if ((b = stored_profile(store, series[*k].run, scenario))) b_from = series[*k].run.source;
  if (b) add_operator_suspects(w, *a, a_from, *b, b_from, measured_growth);
}

std::vector<TrendPoint> trend(const HistoryStore& store, const std::string& scenario,
                              const std::vector<RunRepeats>& series, Metric m, const TrendOptions& o,
                              NightVerdicts& nights) {
  std::vector<TrendPoint> out;
  for (size_t i = 0; i < series.size(); ++i) {
    TrendPoint p;
    p.run = series[i].run;
    p.median = stats::median_interval(metric_values(series[i].repeats, m));
    p.verdict = by_threshold(m) ? threshold_verdict(series, i, m, o) : nights.of(series[i].run, scenario);
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
      const auto steps = stats::change_points(levels, o.rule.change_points);
      for (size_t k = 0; k < steps.size(); ++k) {
        const auto& c = steps[k];
        TrendPoint& at = out[members[static_cast<size_t>(c.index)]];
        at.change_point = true;
        at.step = std::expm1(c.after - c.before);
        // What changed across it: the runs of the level before against the
        // runs of the level after (each up to the neighbouring change point).
        const size_t from = k == 0 ? 0 : static_cast<size_t>(steps[k - 1].index);
        const size_t mid = static_cast<size_t>(c.index);
        const size_t to = k + 1 < steps.size() ? static_cast<size_t>(steps[k + 1].index) : members.size();
        std::vector<RunFacts> before, after;
        std::vector<size_t> before_runs, after_runs;
        for (size_t j = from; j < mid; ++j) {
          before.push_back(series[members[j]].run.facts);
          before_runs.push_back(members[j]);
        }
        for (size_t j = mid; j < to; ++j) {
          after.push_back(series[members[j]].run.facts);
          after_runs.push_back(members[j]);
        }
        at.what_changed = what_changed(before, after);
        // A slowdown of a rate (or a time that grew): the operators that grew with it.
        const bool rate = metric_direction(m) == stats::Direction::higher_is_better;
        if (rate ? at.step < 0 : at.step > 0)
          add_change_point_operators(at.what_changed, store, scenario, series, before_runs, after_runs,
                                     step_time_growth(at.step, rate));
      }
    }
  }
  return out;
}

}  // namespace

std::vector<ScenarioTrend> trends(const HistoryStore& store, const std::vector<std::string>& scenarios, Metric m,
                                  const TrendOptions& o) {
  NightVerdicts nights(store, m, o);
  std::vector<ScenarioTrend> out;
  for (const auto& scenario : scenarios)
    out.push_back({scenario, trend(store, scenario, store.series(scenario), m, o, nights)});
  return out;
}

std::string trend_markdown(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points) {
  std::vector<std::vector<std::string>> rows = {{"time", "commit", "machine", "preset", "config", "repeats",
                                                 "median [interval, coverage] (" + metric_unit(m) + ")",
                                                 "vs previous runs", "change point"}};
  std::vector<std::string> steps, unsettled;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (stats::interval_too_wide(p.verdict.why))
      unsettled.push_back(p.run.git_commit + " (" + p.run.time + "): " + p.verdict.why_open);
    std::string verdict = to_string(p.verdict.outcome);
    if (p.verdict.outcome == stats::Verdict::insufficient) verdict = "insufficient history";
    if (p.verdict.outcome == stats::Verdict::worse) verdict = "**regressed**";
    if (std::isfinite(p.verdict.change) && p.verdict.outcome != stats::Verdict::insufficient)
      verdict += " (" + format_percent(p.verdict.change) + ")";
    std::string cp;
    if (p.change_point) {
      cp = "**step " + format_percent(p.step) + "**";
      // The previous run of its series: the commit range of the step.
      std::string from = "?";
      for (size_t j = i; j-- > 0;)
        if (same_series(points[j].run, p.run)) {
          from = points[j].run.git_commit + " (" + points[j].run.time + ")";
          break;
        }
      std::string step = format_percent(p.step) + " between " + from + " and " + p.run.git_commit + " (" + p.run.time + ")";
      // What changed across it, indented under the step.
      for (const auto& line : what_changed_lines(p.what_changed)) step += "\n  " + line;
      steps.push_back(step);
    }
    rows.push_back({p.run.time, p.run.git_commit, p.run.machine, p.run.preset, p.run.config_hash,
                    std::to_string(p.median.n), format_interval(p.median, "%.4g"), verdict, cp});
  }
  std::string out = "### " + scenario + ": " + to_string(m) + "\n\n" +
                    format_table(rows, {false, false, false, false, false, true, true, false, false},
                                 TableStyle::markdown);
  if (!unsettled.empty()) {
    out += "\nCannot tell (no change called, but the change's interval still includes changes beyond the minimum "
           "effect), with what would settle it:\n";
    for (const auto& u : unsettled) out += "- " + u + "\n";
  }
  if (!steps.empty()) {
    out += "\nChange points (E-divisive means, Otava's merge, over each series' run medians), each with the recorded facts "
           "that differ between the runs of the level before and those of the level after, most decisive first:\n";
    for (const auto& s : steps) out += "- " + s + "\n";
  }
  return out;
}

std::string duet_trend_markdown(const std::string& scenario, const std::vector<DuetRatio>& ratios) {
  std::vector<std::vector<std::string>> rows = {
      {"time", "tonight", "reference", "machine", "mode", "pairs", "change B / A", "interval (level)", "verdict"}};
  for (const auto& r : ratios) {
    const std::string level = std::isfinite(r.level) ? " (" + format_double("%.3g", 100 * r.level) + " %)" : "";
    rows.push_back({r.duet.time, r.duet.git_commit, r.duet.reference, r.duet.machine, r.duet.mode,
                    std::to_string(r.pairs), format_percent(r.change), format_percent(r.low) + " to " + format_percent(r.high) + level,
                    r.verdict == "regressed" ? "**regressed**" : r.verdict});
  }
  return "### " + scenario + ": duet jobs (tonight B against the reference A, pair by pair)\n\n" +
         format_table(rows, {false, false, false, false, false, true, true, true, false}, TableStyle::markdown) +
         "\nChange: B / A - 1 of train_samples_per_s, the geometric mean over the job's pairs (as duet.md "
         "prints it); interval and verdict as that job judged them.\n";
}

}  // namespace ftb
