#include "reports/analysis/regress_steps.h"

#include "reports/analysis/accuracy_verdict.h"

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
#include "core/base/json_text.h"

namespace ftb::regress_detail {

using nlohmann::json;

namespace {

// Operator suspects of a slower row (suspects.h, add_operator_suspects): the
// newest reference run with a profile of it against tonight's last run with
// one.
void add_row_operator_suspects(WhatChanged& w, const std::string& scenario, double measured_growth,
                               const std::vector<RunRepeats>& ref, const std::vector<size_t>& reference_index,
                               const std::vector<Report>& current, const std::vector<std::string>& where,
                               const ProfileOf& profile_of) {
  std::optional<OpProfile> before, after;
  std::string before_from, after_from;
  for (auto k = reference_index.rbegin(); k != reference_index.rend() && !before; ++k) {
    if (*k >= ref.size()) continue;
    before = profile_of(ref[*k], scenario);
    before_from = ref[*k].run.source;
  }
  for (size_t k = current.size(); k-- > 0 && !after;) {
    after = profile_in(current[k], scenario);
    after_from = k < where.size() ? where[k] : std::string();
  }
  if (before && after) ftb::add_operator_suspects(w, *before, before_from, *after, after_from, measured_growth);
}

// What changed, beside each regressed row: its reference runs against
// every run of tonight (environment facts), and for the throughput row the
// operators that grew.
void explain_regressions(RegressSummary& s, const std::vector<Report>& current, const std::vector<std::string>& where,
                         const std::vector<std::vector<RunRepeats>>& row_refs, const RegressOptions& o,
                         const ProfileOf& profile_of) {
  std::vector<RunFacts> tonight_facts;
  for (const auto& c : current) tonight_facts.push_back(run_facts(c.environment, c.config));
  for (size_t i = 0; i < s.rows.size(); ++i) {
    MetricVerdict& v = s.rows[i];
    if (v.outcome != stats::Verdict::worse) continue;
    std::vector<RunFacts> before;
    for (size_t k : v.reference_index)
      if (k < row_refs[i].size()) before.push_back(row_refs[i][k].run.facts);
    v.what_changed = what_changed(before, tonight_facts);
    if (v.metric == o.throughput)
      add_row_operator_suspects(
          v.what_changed, v.scenario,
          step_time_growth(v.change, metric_direction(v.metric) == stats::Direction::higher_is_better), row_refs[i],
          v.reference_index, current, where, profile_of);
  }
}

// Scenario r's runs tonight: the first report's, then each further report's
// where the row is ok there (a note names each where it is not).
TonightRuns tonight_runs(const ScenarioResult& r, const std::vector<Report>& current,
                         const std::vector<std::string>& where, std::vector<std::string>& notes) {
  TonightRuns runs;
  runs.first = r.repeats;
  for (size_t k = 1; k < current.size(); ++k) {
    const ScenarioResult* again = find_result(current[k], r.scenario);
    if (again && again->status == Status::ok && !again->repeats.empty()) runs.reruns.push_back(again->repeats);
    else notes.push_back(r.scenario + ": not ok in " + where[k] + ", judged on tonight's other runs");
  }
  return runs;
}

}  // namespace

void check_noise_matches(const RegressOptions& o, const RunKey& key, const std::string& current_where) {
  if (!o.noise) return;
  if (o.noise->key.preset != key.preset || o.noise->key.config_hash != key.config_hash)
    input_error(o.noise_path, "measured for preset '" + o.noise->key.preset + "' config " + o.noise->key.config_hash +
                                  ", but " + current_where + " has preset '" + key.preset + "' config " +
                                  key.config_hash + " (calibrate this config)");
}

JudgeContext context_for(const RegressOptions& o, const Report& current) {
  JudgeContext c;
  c.min_effect = o.rule.min_effect;
  c.accuracy_min_effect_points = accuracy_min_effect_points(current.config);
  c.seeds_per_repeat = seeds_per_repeat(current.config);
  return c;
}

std::string rule_text(const RegressOptions& o, bool from_history) {
  std::string gates;
  for (Gate g : o.fail_on) gates += (gates.empty() ? "" : ", ") + to_string(g);
  const std::string throughput =
      from_history ? "Throughput: " + describe(o.rule) + "."
                   : "Throughput: tonight's level (the median of its repeats; several runs tonight: one level each) "
                     "against the baseline runs' levels, a "
                     "one-sided t-test whose run-to-run noise comes from the baseline runs (two or more) and/or "
                     "--noise; with one baseline run and no noise file it cannot tell. Holm over every scenario at " +
                         shortest_double(o.rule.family_alpha) + ", and a change beyond " +
                         format_double("%.3g", 100 * o.rule.min_effect) +
                         " %. A change not called is \"same\" only where its 95 % interval rules out a change beyond " +
                         format_double("%.3g", 100 * o.rule.min_effect) +
                         " % either way; otherwise \"cannot tell (wide)\" (not a failure), naming the further runs "
                         "that would settle it (modelled from the measured noise).";
  return "gating: " + gates + ". " + throughput +
         " Accuracy: tonight's first repeat against the newest reference run's, example by example on the test split "
         "(exact McNemar at 0.05, Newcombe's 95 % interval; with seed_per_repeat=on every repeat against the one of "
         "its seed, a t interval over the seeds' paired differences): lower where the test rejects and the drop is at least "
         "accuracy_min_effect points (the current report's; 1 where it states none), same where the interval lies "
         "inside +-accuracy_min_effect. Memory: the median peak grows "
         "beyond the minimum effect." +
         (o.noise ? " Calibrated run-to-run noise from " + o.noise_path + " (ftbench calibrate), weighted by its "
                        "degrees of freedom; \"same\" rules out a scenario's calibrated minimum detectable change "
                        "where it is larger than the minimum effect."
                  : std::string());
}

// Rows for every ok scenario of tonight's first report: throughput judged by
// `throughput` (all scenarios at once, every run of tonight that has the
// scenario ok), accuracy and memory by their thresholds on the pooled
// repeats; then, beside each regressed row, what changed between its
// reference runs and tonight's (suspects.h).
void judge_scenarios(RegressSummary& s, const std::vector<Report>& current, const std::vector<std::string>& where,
                     const RegressOptions& o,
                     const std::function<std::vector<RunRepeats>(const std::string&)>& reference, bool from_history,
                     const ThroughputJudge& throughput, const ProfileOf& profile_of) {
  const JudgeContext ctx = context_for(o, current.front());
  std::vector<std::vector<RunRepeats>> refs;  // per statistical row
  std::vector<TonightRuns> tonight;
  std::vector<const NoiseEstimate*> noise;
  std::vector<size_t> statistical;  // row indices
  std::vector<std::vector<RunRepeats>> row_refs;  // per row: its reference runs (what changed)
  for (const auto& r : current.front().results) {
    if (r.status != Status::ok) {
      s.notes.push_back(r.scenario + ": " + to_string(r.status) + " tonight (" + r.reason + "), not judged");
      continue;
    }
    const TonightRuns runs = tonight_runs(r, current, where, s.notes);
    const std::vector<RepeatSample> pooled = runs.pooled();
    auto ref = reference(r.scenario);
    std::vector<std::vector<RepeatSample>> ref_repeats;
    for (const auto& run : ref) ref_repeats.push_back(run.repeats);
    for (Gate g : {Gate::throughput, Gate::accuracy, Gate::memory}) {
      const Metric m = g == Gate::throughput ? o.throughput : gate_metric(g);
      MetricVerdict v;
      if (g == Gate::throughput) {
        v.metric = m;
        v.reference_runs = static_cast<int>(ref.size());
        if (ref.empty()) v.note = from_history ? "no run of this machine, preset and config in the history"
                                               : "not in the baseline";
        v.current_n = static_cast<int>(pooled.size());
        v.current_runs = static_cast<int>(1 + runs.reruns.size());
        if (!pooled.empty()) v.current_median = stats::median(metric_values(pooled, m));
        if (!ref.empty()) {
          statistical.push_back(s.rows.size());
          refs.push_back(ref);
          tonight.push_back(runs);
          noise.push_back(o.noise ? find_noise(*o.noise, r.scenario, m) : nullptr);
        }
      } else {
        v = judge_threshold(m, ref_repeats, from_history, pooled, ctx);
        v.current_runs = static_cast<int>(1 + runs.reruns.size());
        for (size_t k = 0; k < ref.size(); ++k) v.reference_index.push_back(k);
      }
      v.scenario = r.scenario;
      v.gating = o.fail_on.count(g) > 0;
      s.rows.push_back(std::move(v));
      row_refs.push_back(ref);
    }
  }
  std::vector<MetricVerdict*> rows;
  for (size_t i : statistical) rows.push_back(&s.rows[i]);
  if (!rows.empty()) throughput(rows, refs, tonight, noise);
  explain_regressions(s, current, where, row_refs, o, profile_of);
}

// Tonight's reports: each read and checked; every one after the first of the
// same machine, preset and config as the first (InputError naming it).
std::vector<Report> read_tonight(const std::vector<NamedReport>& current, const RegressOptions& o) {
  if (current.empty()) throw std::invalid_argument("regress: no current report");
  std::vector<Report> out;
  for (const auto& c : current) out.push_back(report_from_json(c.json, c.where));
  const RunKey first = run_key(out.front(), current.front().where, o.machine);
  for (size_t k = 1; k < out.size(); ++k) {
    const RunKey key = run_key(out[k], current[k].where, o.machine);
    if (key.machine != first.machine)
      input_error(current[k].where, "ran on machine '" + key.machine + "', " + current.front().where + " on '" +
                                        first.machine + "': tonight's runs must be of one machine");
    if (key.preset != first.preset || key.config_hash != first.config_hash)
      input_error(current[k].where, "preset or config differs from " + current.front().where + "'s: " +
                                        names_for_message(config_differences(out.front().config, out[k].config), 4) +
                                        (key.preset != first.preset ? " (preset)" : ""));
  }
  return out;
}

std::string tonight_words(const std::vector<NamedReport>& current) {
  std::string s;
  for (const auto& c : current) s += (s.empty() ? "" : ", ") + c.where;
  if (current.size() > 1) s += " (" + std::to_string(current.size()) + " runs of tonight, judged together)";
  return s;
}

}  // namespace ftb::regress_detail
