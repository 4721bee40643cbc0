// regress against baseline runs (reports): the test over runs, Holm over
// the rows, and "cannot tell" where the interval is too wide (resolution.h).
#include "reports/analysis/regress_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/profile.h"
#include "reports/analysis/resolution.h"
#include "reports/analysis/two_level.h"
#include "reports/analysis/verdict.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;
using namespace regress_detail;

namespace {

// One throughput row against baseline runs: the test over runs
// (compare_levels; tonight's one run taken as noisy as the baseline's), its
// numbers and note; returns the test.
stats::LevelDifference test_vs_baseline(MetricVerdict& v, const std::vector<RunRepeats>& refs,
                                        const TonightRuns& tonight, const NoiseEstimate* noise) {
  const Metric m = v.metric;
  std::vector<double> levels;
  int n = 0;
  for (const auto& run : refs) {
    levels.push_back(stats::run_level(metric_values(run.repeats, m)));
    n += static_cast<int>(run.repeats.size());
  }
  // Tonight's runs are runs of their own: one level each.
  std::vector<double> tonight_levels = {stats::run_level(metric_values(tonight.first, m))};
  for (const auto& run : tonight.reruns) tonight_levels.push_back(stats::run_level(metric_values(run, m)));
  std::optional<stats::KnownNoise> known;
  if (noise && noise->run_cv > 0) known = known_noise(*noise);
  const auto d = stats::compare_levels(levels, tonight_levels, known);
  const bool higher = metric_direction(m) == stats::Direction::higher_is_better;
  v.reference_runs = v.level_runs = static_cast<int>(levels.size());
  v.reference_n = n;
  v.reference_median = std::exp(stats::mean(levels));
  v.change = std::expm1(d.diff);
  v.p = d.basis == stats::NoiseBasis::none ? NAN : higher ? d.p_down : d.p_up;
  v.df = d.test_df;  // the p-value's (Hsu's small-sample correction: two_level.h); the interval's too
  if (d.basis != stats::NoiseBasis::none) v.se = d.se;
  v.reference_index.clear();
  for (size_t k = 0; k < levels.size(); ++k) v.reference_index.push_back(k);
  if (!std::isfinite(d.diff))
    v.note = "a run with a throughput of 0 has no level: not judged";
  else if (d.basis == stats::NoiseBasis::none) {
    v.why = stats::Ruling::no_noise_estimate;
    v.note = "cannot tell from one run a side: the run-to-run noise is unknown (repeats inside one process "
             "share its luck); add baseline runs (--baseline R1 R2 ...) or --noise from `ftbench calibrate`";
  } else
    v.note = "t-test over runs, noise from " + stats::to_string(d.basis);
  return d;
}

// A row's verdict (verdict.h's decide) from the 95 % interval of the change
// (the one regress.json writes), the family's one-sided test toward the side
// the change lies on, and calibrate's minimum detectable change; a row it
// cannot tell names what would settle it (resolution.h).
void decide_vs_baseline(MetricVerdict& v, const stats::LevelDifference& d, bool rejected, double min_effect,
                        double min_detectable_change) {
  const stats::TBounds t = stats::t_interval(std::log1p(v.change), v.se, v.df, 0.95);
  const double low = std::isfinite(t.low) ? t.low : d.diff, high = std::isfinite(t.high) ? t.high : d.diff;
  const stats::Change c{std::log1p(v.change), low, high, 0.95, {d.var_a, d.runs_a, d.df_a}, {d.var_b, d.runs_b, d.df_b}};
  const stats::Decision r =
      stats::decide(c, {min_effect, rejected, metric_direction(v.metric), min_detectable_change});
  // The interval falls back to the estimate where the t bounds are not
  // finite, so only a NaN change is insufficient here: still open.
  v.outcome = r.verdict == stats::Verdict::insufficient ? stats::Verdict::cannot_tell : r.verdict;
  v.resolution = r.reason.settle;
  if (v.outcome != stats::Verdict::cannot_tell) return;
  // (a NaN change is insufficient in decide() and open here: an interval too wide)
  v.why = stats::interval_too_wide(r.reason.ruling) ? r.reason.ruling : stats::Ruling::interval_reaches;
  v.why_open = stats::explain(r.reason) + "; " +
               stats::settle_text(v.resolution, "baseline runs (--baseline R1 R2 ...)",
                                  "runs tonight (--current R1 R2 ...)") +
               " would settle it";
  v.note = "cannot tell: " + v.why_open;
}

// The baseline rule over every throughput row at once: one-sided tests
// towards worse and better, Holm over the rows at family_alpha, a change
// at or beyond min_effect, decided once (decide_vs_baseline).
void judge_vs_baseline_runs(std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& refs,
                            const std::vector<TonightRuns>& tonight, const std::vector<const NoiseEstimate*>& noise,
                            const stats::NightlyRule& rule) {
  std::vector<double> p_worse, p_better;
  std::vector<stats::LevelDifference> diffs;
  for (size_t i = 0; i < rows.size(); ++i) {
    diffs.push_back(test_vs_baseline(*rows[i], refs[i], tonight[i], noise[i]));
    const auto& d = diffs.back();
    const bool higher = metric_direction(rows[i]->metric) == stats::Direction::higher_is_better;
    p_worse.push_back(rows[i]->p);
    p_better.push_back(d.basis == stats::NoiseBasis::none ? NAN : higher ? d.p_up : d.p_down);
  }
  const auto worse = stats::holm_reject(p_worse, rule.family_alpha);
  const auto better = stats::holm_reject(p_better, rule.family_alpha);
  for (size_t i = 0; i < rows.size(); ++i) {
    MetricVerdict& v = *rows[i];
    if (diffs[i].basis == stats::NoiseBasis::none || !std::isfinite(diffs[i].diff)) continue;  // insufficient
    const double bad = metric_direction(v.metric) == stats::Direction::higher_is_better ? -v.change : v.change;
    // With a calibrate file, "same" rules out what the rule could have caught
    // (its minimum detectable change), where that is larger.
    decide_vs_baseline(v, diffs[i], bad > 0 ? worse[i] : better[i], rule.min_effect,
                       noise[i] ? noise[i]->min_detectable_change : 0.0);
  }
}

}  // namespace

RegressSummary regress_vs_baseline(const std::vector<NamedReport>& baselines, const json& current_json,
                                   const std::string& current_where, const RegressOptions& o) {
  return regress_vs_baseline(baselines, std::vector<NamedReport>{{current_json, current_where}}, o);
}

RegressSummary regress_vs_baseline(const std::vector<NamedReport>& baselines, const std::vector<NamedReport>& tonight,
                                   const RegressOptions& o) {
  const std::vector<Report> reports = read_tonight(tonight, o);
  const Report& current = reports.front();
  const std::string& current_where = tonight.front().where;
  const RunKey ck = run_key(current, current_where, o.machine);
  std::vector<Report> base;
  std::string names;
  std::set<std::string> machines;
  for (const auto& b : baselines) {
    base.push_back(report_from_json(b.json, b.where));
    const RunKey bk = run_key(base.back(), b.where, o.machine);
    if (bk.preset != ck.preset)
      input_error(current_where, "preset '" + ck.preset + "' differs from the baseline's '" + bk.preset + "' (" +
                                     b.where + ")");
    if (bk.config_hash != ck.config_hash)
      input_error(current_where, "config differs from the baseline's (" + b.where + "): " +
                                     names_for_message(config_differences(base.back().config, current.config), 4));
    names += (names.empty() ? "" : ", ") + b.where;
    if (bk.machine != ck.machine) machines.insert(bk.machine);
  }
  check_noise_matches(o, ck, current_where);
  RegressSummary s;
  s.current = tonight_words(tonight);
  s.reference = std::string(baselines.size() == 1 ? "baseline " : "baseline runs ") + names;
  s.from_history = false;
  s.rule = rule_text(o, false);
  for (const auto& m : machines) s.notes.push_back("a baseline ran on '" + m + "', tonight on '" + ck.machine + "'");
  std::vector<std::string> where;
  for (const auto& t : tonight) where.push_back(t.where);
  judge_scenarios(
      s, reports, where, o,
      [&](const std::string& scenario) {
        std::vector<RunRepeats> runs;
        for (size_t k = 0; k < base.size(); ++k) {
          const ScenarioResult* r = find_result(base[k], scenario);
          if (!r || r->status != Status::ok || r->repeats.empty()) continue;
          RunRepeats rr;
          rr.run.source = baselines[k].where;
          rr.run.facts = run_facts(base[k].environment, base[k].config);
          rr.repeats = r->repeats;
          runs.push_back(std::move(rr));
        }
        return runs;
      },
      false,
      [&](std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& refs,
          const std::vector<TonightRuns>& tonight_runs, const std::vector<const NoiseEstimate*>& noise) {
        judge_vs_baseline_runs(rows, refs, tonight_runs, noise, o.rule);
      },
      [&](const RunRepeats& run, const std::string& scenario) -> std::optional<OpProfile> {
        for (size_t k = 0; k < base.size(); ++k)
          if (baselines[k].where == run.run.source) return profile_in(base[k], scenario);
        return std::nullopt;
      });
  return s;
}

}  // namespace ftb
