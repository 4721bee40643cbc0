#include "reports/analysis/regress.h"

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
#include "reports/analysis/two_level.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

std::string format_value(Metric m, double v) {
  if (!std::isfinite(v)) return "-";
  switch (m) {
    case Metric::peak_bytes: return format_double("%.1f MiB", v / (1024.0 * 1024.0));
    case Metric::test_acc: return format_double("%.2f %%", 100 * v);
    default: return format_double(std::abs(v) >= 10000 ? "%.0f" : "%.4g", v) + " " + metric_unit(m);
  }
}

std::string format_p(double p) { return std::isfinite(p) ? format_double("%.2g", p) : "-"; }

std::vector<double> pooled(const std::vector<std::vector<RepeatSample>>& runs, Metric m) {
  std::vector<double> out;
  for (const auto& r : runs)
    for (const auto& s : r) out.push_back(metric_value(s, m));
  return out;
}

void flatten(const json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
  } else {
    out[prefix] = json_text(j);
  }
}

}  // namespace

std::string to_string(Gate g) {
  switch (g) {
    case Gate::throughput: return "throughput";
    case Gate::accuracy: return "accuracy";
    case Gate::memory: return "memory";
  }
  return "?";
}

std::set<Gate> parse_gates(const std::string& csv, const std::string& flag) {
  std::set<Gate> gates;
  size_t start = 0;
  while (start <= csv.size()) {
    const size_t comma = std::min(csv.find(',', start), csv.size());
    const std::string name = csv.substr(start, comma - start);
    bool found = false;
    for (Gate g : {Gate::throughput, Gate::accuracy, Gate::memory})
      if (to_string(g) == name) {
        gates.insert(g);
        found = true;
      }
    if (!found) input_error(flag, "unknown gate '" + name + "' (throughput, accuracy, memory)");
    start = comma + 1;
  }
  return gates;
}

Metric gate_metric(Gate g) {
  switch (g) {
    case Gate::throughput: return Metric::train_samples_per_s;
    case Gate::accuracy: return Metric::test_acc;
    case Gate::memory: return Metric::peak_bytes;
  }
  return Metric::train_samples_per_s;
}

std::string to_string(Outcome o) {
  switch (o) {
    case Outcome::regressed: return "regressed";
    case Outcome::improved: return "improved";
    case Outcome::same: return "same";
    case Outcome::insufficient: return "insufficient";
    case Outcome::cannot_tell: return "cannot tell";
  }
  return "?";
}

MetricVerdict judge_threshold(Metric m, const std::vector<std::vector<RepeatSample>>& reference, bool from_history,
                              const std::vector<RepeatSample>& current, const JudgeContext& ctx) {
  MetricVerdict v;
  v.metric = m;
  const std::vector<double> ref = pooled(reference, m), cur = metric_values(current, m);
  v.reference_runs = static_cast<int>(reference.size());
  v.level_runs = v.reference_runs;
  v.reference_n = static_cast<int>(ref.size());
  v.current_n = static_cast<int>(cur.size());
  if (!cur.empty()) v.current_median = stats::median(cur);
  if (ref.empty() || cur.empty()) {
    v.note = from_history ? "no run of this machine, preset and config in the history" : "not in the baseline";
    return v;
  }
  v.reference_median = stats::median(ref);
  v.change = v.reference_median != 0 ? v.current_median / v.reference_median - 1 : 0;
  const bool higher = metric_direction(m) == stats::Direction::higher_is_better;
  const double worse = higher ? -v.change : v.change;  // > 0: worse
  auto by_threshold = [&](double bad, double threshold, const std::string& how) {
    v.outcome = bad > threshold ? Outcome::regressed : -bad > threshold ? Outcome::improved : Outcome::same;
    v.note = how;
  };
  if (m == Metric::test_acc)
    by_threshold(100 * (v.reference_median - v.current_median), ctx.tolerance_points,
                 "median drop beyond " + shortest_double(ctx.tolerance_points) + " points");
  else
    by_threshold(worse, ctx.min_effect, "median change beyond " + format_double("%.3g", 100 * ctx.min_effect) + " %");
  return v;
}

namespace {

std::string run_words(const HistoryRun& r) {
  return (r.git_commit.empty() ? std::string("?") : r.git_commit.substr(0, 12)) + " (" + r.time + ")";
}

Outcome outcome_of(stats::NightOutcome o) {
  switch (o) {
    case stats::NightOutcome::regressed: return Outcome::regressed;
    case stats::NightOutcome::improved: return Outcome::improved;
    case stats::NightOutcome::same: return Outcome::same;
    case stats::NightOutcome::insufficient: return Outcome::insufficient;
    case stats::NightOutcome::cannot_tell: return Outcome::cannot_tell;
  }
  return Outcome::insufficient;
}

}  // namespace

void judge_series(std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& history,
                  const std::vector<std::vector<RepeatSample>>& tonight, const stats::NightlyRule& rule,
                  const std::vector<const NoiseEstimate*>& noise,
                  const std::vector<std::vector<std::vector<RepeatSample>>>& reruns) {
  std::vector<stats::NightSeries> series;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Metric m = rows[i]->metric;
    stats::NightSeries s;
    for (const auto& run : history[i]) s.nights.push_back(metric_values(run.repeats, m));
    s.tonight = metric_values(tonight[i], m);
    if (i < reruns.size())
      for (const auto& run : reruns[i]) s.reruns.push_back(metric_values(run, m));
    s.direction = metric_direction(m);
    if (noise[i] && noise[i]->run_cv > 0) s.noise = known_noise(*noise[i]);
    series.push_back(std::move(s));
  }
  const auto verdicts = stats::judge_nights(series, rule);
  for (size_t i = 0; i < rows.size(); ++i) {
    MetricVerdict& v = *rows[i];
    const stats::NightVerdict& n = verdicts[i];
    const auto& runs = history[i];
    v.reference_runs = static_cast<int>(runs.size());
    v.reference_n = 0;
    for (const auto& r : runs) v.reference_n += static_cast<int>(r.repeats.size());
    std::vector<double> all_tonight = series[i].tonight;
    for (const auto& run : series[i].reruns) all_tonight.insert(all_tonight.end(), run.begin(), run.end());
    v.current_n = static_cast<int>(all_tonight.size());
    v.current_runs = static_cast<int>(1 + series[i].reruns.size());
    v.current_median = v.current_n ? stats::median(all_tonight) : v.current_median;
    v.outcome = outcome_of(n.outcome);
    v.level_runs = n.reference_nights;
    v.reference_index.assign(n.reference.begin(), n.reference.end());
    if (std::isfinite(n.reference_level)) v.reference_median = std::exp(n.reference_level);
    v.change = n.change;
    v.p = n.p_worse;
    v.df = n.df;
    v.se = n.se;
    for (const auto& c : n.steps) {
      if (c.index <= 0 || c.index > static_cast<int>(runs.size())) continue;
      const std::string to = c.index < static_cast<int>(runs.size()) ? run_words(runs[c.index].run) : "tonight";
      v.steps.push_back(format_double("%+.1f %%", 100 * std::expm1(c.after - c.before)) + " between " +
                        run_words(runs[c.index - 1].run) + " and " + to);
    }
    // Judged rows name the nights left out in a note of their own; an
    // insufficient row's reason (n.note) already says it.
    if (n.outcome != stats::NightOutcome::insufficient)
      for (int k : n.left_out)
        if (k >= 0 && k < static_cast<int>(runs.size())) v.left_out.push_back(run_words(runs[k].run));
    if (n.outcome == stats::NightOutcome::insufficient)
      v.note = n.note;
    else
      v.note = (n.outcome == stats::NightOutcome::cannot_tell ? "cannot tell: " + stats::cannot_tell_text(n, rule) + "; "
                                                               : std::string()) +
               format_double("t-test vs %.0f night(s) since the last change point", n.reference_nights) +
               (v.current_runs > 1 ? format_double(", tonight the mean of %.0f runs' levels", v.current_runs) : "") +
               (n.own_spread ? " (its own spread: noisier than the pool)" : "") +
               (n.outlying_night >= 0 && n.outlying_night < static_cast<int>(runs.size())
                    ? ", " + run_words(runs[static_cast<size_t>(n.outlying_night)].run) +
                          format_double(" left out as an outlying night (p %.2g)", n.outlying_p)
                    : "") +
               format_double(", within-run sd %.2g %%", 100 * n.within_sd) +
               format_double(", between-night sd %.2g %%", 100 * n.between_sd);
  }
}

bool RegressSummary::regressed() const {
  for (const auto& r : rows)
    if (r.gating && r.outcome == Outcome::regressed) return true;
  return false;
}

std::vector<std::string> config_differences(const json& from, const json& to) {
  std::map<std::string, std::string> a, b;
  flatten(hashed_config(from), "", a);
  flatten(hashed_config(to), "", b);
  std::vector<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) out.push_back(k + ": " + v + " -> (missing)");
    else if (it->second != v) out.push_back(k + ": " + v + " -> " + it->second);
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) out.push_back(k + ": (missing) -> " + v);
  return out;
}

namespace {

Report read_checked(const json& j, const std::string& where) {
  Report r = report_from_json(j, where);
  check_measurements(r, where);
  return r;
}

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
  c.tolerance_points = accuracy_tolerance_points(current.config);
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
                         format_double("%.3g", 100 * o.rule.min_effect) + " %.";
  return "gating: " + gates + ". " + throughput +
         " Accuracy: the median test accuracy drops beyond the preset's tolerance. Memory: the median peak grows "
         "beyond the minimum effect." +
         (o.noise ? " Calibrated run-to-run noise from " + o.noise_path + " (ftbench calibrate), weighted by its "
                        "degrees of freedom."
                  : std::string());
}

// Tonight's runs of one scenario: the first report's repeats, then each
// further report's (its reruns).
struct TonightRuns {
  std::vector<RepeatSample> first;
  std::vector<std::vector<RepeatSample>> reruns;
  std::vector<RepeatSample> pooled() const {
    std::vector<RepeatSample> all = first;
    for (const auto& r : reruns) all.insert(all.end(), r.begin(), r.end());
    return all;
  }
};

// A reference run's operator profile of `scenario` (nullopt: none).
using ProfileOf = std::function<std::optional<OpProfile>(const RunRepeats&, const std::string& scenario)>;

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

using ThroughputJudge = std::function<void(std::vector<MetricVerdict*>&, const std::vector<std::vector<RunRepeats>>&,
                                           const std::vector<TonightRuns>&, const std::vector<const NoiseEstimate*>&)>;

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
    TonightRuns runs;
    runs.first = r.repeats;
    for (size_t k = 1; k < current.size(); ++k) {
      const ScenarioResult* again = find_result(current[k], r.scenario);
      if (again && again->status == Status::ok && !again->repeats.empty()) runs.reruns.push_back(again->repeats);
      else s.notes.push_back(r.scenario + ": not ok in " + where[k] + ", judged on tonight's other runs");
    }
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

  // What changed, beside each regressed row: its reference runs against
  // every run of tonight.
  std::vector<RunFacts> tonight_facts;
  for (const auto& c : current) tonight_facts.push_back(run_facts(c.environment, c.config));
  for (size_t i = 0; i < s.rows.size(); ++i) {
    MetricVerdict& v = s.rows[i];
    if (v.outcome != Outcome::regressed) continue;
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

}  // namespace

namespace {

// Tonight's reports: each read and checked; every one after the first of the
// same machine, preset and config as the first (InputError naming it).
std::vector<Report> read_tonight(const std::vector<NamedReport>& current, const RegressOptions& o) {
  if (current.empty()) throw std::invalid_argument("regress: no current report");
  std::vector<Report> out;
  for (const auto& c : current) out.push_back(read_checked(c.json, c.where));
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

}  // namespace

RegressSummary regress_vs_history(const HistoryStore& store, const std::string& store_path, const json& current_json,
                                  const std::string& current_where, const RegressOptions& o) {
  return regress_vs_history(store, store_path, std::vector<NamedReport>{{current_json, current_where}}, o);
}

RegressSummary regress_vs_history(const HistoryStore& store, const std::string& store_path,
                                  const std::vector<NamedReport>& tonight, const RegressOptions& o) {
  const std::vector<Report> reports = read_tonight(tonight, o);
  const Report& current = reports.front();
  const std::string& current_where = tonight.front().where;
  const RunKey key = run_key(current, current_where, o.machine);
  std::vector<std::string> exclude;
  for (const auto& t : tonight) exclude.push_back(report_hash(t.json));
  check_noise_matches(o, key, current_where);

  // A report of another preset or config than every run of its machine is a
  // mistake to name, not an empty window to shrug at.
  auto on_machine = store.runs_on_machine(key.machine, exclude.front());
  on_machine.erase(std::remove_if(on_machine.begin(), on_machine.end(),
                                  [&](const HistoryRun& r) {
                                    return std::find(exclude.begin(), exclude.end(), r.report_hash) != exclude.end();
                                  }),
                   on_machine.end());
  bool same_series = false;
  const HistoryRun* same_preset = nullptr;
  std::vector<std::string> presets;
  for (const auto& run : on_machine) {
    if (run.preset == key.preset && run.config_hash == key.config_hash) same_series = true;
    if (run.preset == key.preset && !same_preset) same_preset = &run;
    if (std::find(presets.begin(), presets.end(), run.preset) == presets.end()) presets.push_back(run.preset);
  }
  if (!on_machine.empty() && !same_series) {
    const std::string hint = "; `ftbench history add` it to start a new series";
    if (!same_preset)
      input_error(current_where, "preset '" + key.preset + "' differs from the history's (" + names_for_message(presets) +
                                     ") for machine '" + key.machine + "' in " + store_path + hint);
    const json old_config = store.report_json(same_preset->id).at("config");
    input_error(current_where, "config differs from the latest '" + key.preset + "' run of machine '" + key.machine +
                                   "' in " + store_path + " (" + same_preset->time + ", " + same_preset->source +
                                   "): " + names_for_message(config_differences(old_config, current.config), 4) + hint);
  }

  std::vector<std::string> where;
  for (const auto& t : tonight) where.push_back(t.where);
  RegressSummary s = judge_vs_history(store, reports, where, key, exclude, nullptr, o);
  s.current = tonight_words(tonight);
  s.reference = "history " + store_path + " (last " + std::to_string(o.window) + " runs of machine '" + key.machine +
                "', preset '" + key.preset + "', config " + key.config_hash + ")";
  s.rule = rule_text(o, true);
  if (on_machine.empty()) s.notes.insert(s.notes.begin(), "no run of machine '" + key.machine + "' in the history yet");
  return s;
}

RegressSummary judge_vs_history(const HistoryStore& store, const Report& current, const RunKey& key,
                                const std::string& exclude, const HistoryRun* before, const RegressOptions& o) {
  return judge_vs_history(store, std::vector<Report>{current}, {std::string()}, key, {exclude}, before, o);
}

RegressSummary judge_vs_history(const HistoryStore& store, const std::vector<Report>& current,
                                const std::vector<std::string>& where, const RunKey& key,
                                const std::vector<std::string>& exclude, const HistoryRun* before,
                                const RegressOptions& o) {
  RegressSummary s;
  judge_scenarios(
      s, current, where, o,
      [&](const std::string& scenario) {
        auto runs = store.window(key, scenario, o.window, exclude, before);
        std::reverse(runs.begin(), runs.end());  // oldest first: a series
        return runs;
      },
      true,
      [&](std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& refs,
          const std::vector<TonightRuns>& tonight, const std::vector<const NoiseEstimate*>& noise) {
        std::vector<std::vector<RepeatSample>> first;
        std::vector<std::vector<std::vector<RepeatSample>>> reruns;
        for (const auto& t : tonight) {
          first.push_back(t.first);
          reruns.push_back(t.reruns);
        }
        judge_series(rows, refs, first, o.rule, noise, reruns);
      },
      [&](const RunRepeats& run, const std::string& scenario) { return stored_profile(store, run.run, scenario); });
  return s;
}

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
    base.push_back(read_checked(b.json, b.where));
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
        std::vector<double> p_worse, p_better;
        std::vector<stats::LevelDifference> diffs;
        for (size_t i = 0; i < rows.size(); ++i) {
          const Metric m = rows[i]->metric;
          std::vector<double> levels;
          int n = 0;
          for (const auto& run : refs[i]) {
            levels.push_back(stats::run_level(metric_values(run.repeats, m)));
            n += static_cast<int>(run.repeats.size());
          }
          // Tonight's runs are runs of their own: one level each.
          std::vector<double> tonight_levels = {stats::run_level(metric_values(tonight_runs[i].first, m))};
          for (const auto& run : tonight_runs[i].reruns) tonight_levels.push_back(stats::run_level(metric_values(run, m)));
          std::optional<stats::KnownNoise> known;
          if (noise[i] && noise[i]->run_cv > 0) known = known_noise(*noise[i]);
          const auto d = stats::compare_levels(levels, tonight_levels, known);
          const bool higher = metric_direction(m) == stats::Direction::higher_is_better;
          p_worse.push_back(d.basis == stats::NoiseBasis::none ? NAN : higher ? d.p_down : d.p_up);
          p_better.push_back(d.basis == stats::NoiseBasis::none ? NAN : higher ? d.p_up : d.p_down);
          MetricVerdict& v = *rows[i];
          v.reference_runs = v.level_runs = static_cast<int>(levels.size());
          v.reference_n = n;
          v.reference_median = std::exp(stats::mean(levels));
          v.change = std::expm1(d.diff);
          v.p = p_worse.back();
          v.df = d.df;
          if (d.basis != stats::NoiseBasis::none) v.se = d.se;
          v.reference_index.clear();
          for (size_t k = 0; k < levels.size(); ++k) v.reference_index.push_back(k);
          if (!std::isfinite(d.diff))
            v.note = "a run with a throughput of 0 has no level: not judged";
          else if (d.basis == stats::NoiseBasis::none)
            v.note = "cannot tell from one run a side: the run-to-run noise is unknown (repeats inside one process "
                     "share its luck); add baseline runs (--baseline R1 R2 ...) or --noise from `ftbench calibrate`";
          else
            v.note = "t-test over runs, noise from " + stats::to_string(d.basis);
          diffs.push_back(d);
        }
        const auto worse = stats::holm_reject(p_worse, o.rule.family_alpha);
        const auto better = stats::holm_reject(p_better, o.rule.family_alpha);
        for (size_t i = 0; i < rows.size(); ++i) {
          MetricVerdict& v = *rows[i];
          if (diffs[i].basis == stats::NoiseBasis::none) continue;  // insufficient
          const double bad = metric_direction(v.metric) == stats::Direction::higher_is_better ? -v.change : v.change;
          v.outcome = worse[i] && bad > o.rule.min_effect     ? Outcome::regressed
                      : better[i] && -bad > o.rule.min_effect ? Outcome::improved
                                                              : Outcome::same;
        }
      },
      [&](const RunRepeats& run, const std::string& scenario) -> std::optional<OpProfile> {
        for (size_t k = 0; k < base.size(); ++k)
          if (baselines[k].where == run.run.source) return profile_in(base[k], scenario);
        return std::nullopt;
      });
  return s;
}

namespace {

// Beside the regressed rows: what changed between their reference runs and
// tonight's, rows with the same answer named together.
std::string what_changed_markdown(const RegressSummary& s) {
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> groups;  // lines -> rows
  std::vector<int> reference_runs;
  for (const auto& r : s.rows) {
    if (r.outcome != Outcome::regressed) continue;
    const auto lines = what_changed_lines(r.what_changed);
    const std::string what = r.scenario + " " + to_string(r.metric);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == lines; });
    if (it == groups.end()) {
      groups.push_back({lines, {what}});
      reference_runs.push_back(static_cast<int>(r.reference_index.size()));
    } else {
      it->second.push_back(what);
    }
  }
  if (groups.empty()) return "";
  std::string out = "\n### What changed (recorded facts that differ, most decisive first)\n";
  for (size_t g = 0; g < groups.size(); ++g) {
    out += "\n" + names_for_message(groups[g].second, groups[g].second.size()) + ": the " +
           std::to_string(reference_runs[g]) + (reference_runs[g] == 1 ? " run" : " runs") +
           " behind the reference level against tonight's " +
           (s.rows.empty() || s.rows.front().current_runs == 1 ? std::string("run")
                                                               : std::to_string(s.rows.front().current_runs) + " runs") +
           ":\n";
    for (const auto& line : groups[g].first) out += line + "\n";
  }
  return out;
}

}  // namespace

std::string regress_markdown(const RegressSummary& s) {
  std::string out = "## ftbench regress\n\n";
  out += "- current: " + s.current + "\n- reference: " + s.reference + "\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"scenario", "metric", "reference level", "current median", "change", "p (t, one-sided)", "verdict"}};
  for (const auto& r : s.rows) {
    std::string verdict = to_string(r.outcome);
    if (r.outcome == Outcome::regressed) verdict = r.gating ? "**REGRESSED**" : "regressed (not gating)";
    if (r.outcome == Outcome::insufficient)
      verdict = r.note.rfind("cannot tell", 0) == 0 ? "cannot tell" : s.from_history ? "insufficient history" : verdict;
    std::string ref = format_value(r.metric, r.reference_median);
    if (r.reference_n) {
      ref += " (" + std::to_string(r.level_runs) + (r.level_runs == 1 ? " run" : " runs");
      if (r.level_runs != r.reference_runs) ref += " since a change point, of " + std::to_string(r.reference_runs);
      ref += ", n=" + std::to_string(r.reference_n) + ")";
    }
    std::string p = format_p(r.p);
    if (std::isfinite(r.p) && r.df > 0) p += std::isfinite(r.df) ? format_double(" (df %.0f)", r.df) : " (df inf)";
    rows.push_back({r.scenario, to_string(r.metric) + (r.gating ? "" : " (not gating)"), ref,
                    format_value(r.metric, r.current_median) + " (n=" + std::to_string(r.current_n) + ")",
                    std::isfinite(r.change) ? format_double("%+.1f %%", 100 * r.change) : "-", p, verdict});
  }
  out += format_table(rows, {false, false, true, true, true, true, false}, TableStyle::markdown);
  out += "\n";
  std::vector<std::string> gating;
  for (const auto& r : s.rows)
    if (r.gating && r.outcome == Outcome::regressed) gating.push_back(r.scenario + " " + to_string(r.metric));
  out += gating.empty() ? "**Result: no regression.**\n"
                        : "**Result: REGRESSED** (" + names_for_message(gating, gating.size()) + ").\n";
  out += what_changed_markdown(s);
  out += "\nRule: " + s.rule + "\n";
  // Insufficient rows grouped by reason, so 9 scenarios of 3 repeats make one line.
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // reason -> what, in row order
  for (const auto& r : s.rows) {
    if (r.outcome != Outcome::insufficient) continue;
    // A scenario whose metrics all share the reason (no history at all) is named once.
    bool shared = true;
    for (const auto& o : s.rows)
      if (o.scenario == r.scenario && (o.outcome != Outcome::insufficient || o.note != r.note)) shared = false;
    const std::string what = shared ? r.scenario : r.scenario + " " + to_string(r.metric);
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == r.note; });
    if (it == reasons.end()) reasons.push_back({r.note, {what}});
    else if (std::find(it->second.begin(), it->second.end(), what) == it->second.end()) it->second.push_back(what);
  }
  std::vector<std::string> notes = s.notes;
  for (const auto& r : s.rows)
    for (const auto& step : r.steps)
      notes.push_back(r.scenario + " " + to_string(r.metric) + ": the history shows a level change " + step +
                      " (a change point; judged against the level since)");
  for (const auto& r : s.rows)
    if (!r.left_out.empty())
      notes.push_back(r.scenario + " " + to_string(r.metric) + ": left out " + names_for_message(r.left_out, 4) +
                      " (no value > 0); judged on the other nights");
  for (const auto& [reason, what] : reasons) notes.push_back(names_for_message(what, 4) + ": " + reason);
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : notes) out += "- " + n + "\n";
  }
  return out;
}

Report stored_report(const HistoryStore& store, const HistoryRun& run) {
  return report_from_json(store.report_json(run.id), run.source + " (history run " + std::to_string(run.id) + ")");
}

std::optional<OpProfile> stored_profile(const HistoryStore& store, const HistoryRun& run, const std::string& scenario) {
  return profile_in(stored_report(store, run), scenario);
}

namespace {

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The 95 % interval of current / reference, as compare.json writes its
// ratios (intervals.h's to_json: median, low, high, coverage, method, min,
// max, n): t on the log levels at the test's df (before Holm). min and max
// (compare's most extreme single-run ratios) are not kept by the verdict:
// null. null where no test ran or the levels had no spread (se 0: p is 1,
// nothing was tested).
json change_interval(const MetricVerdict& v) {
  const stats::TBounds b = stats::t_interval(std::log1p(v.change), v.se, v.df, 0.95);
  if (!std::isfinite(b.low)) return nullptr;
  stats::Interval i;
  i.estimate = 1 + v.change;
  i.low = std::exp(b.low);
  i.high = std::exp(b.high);
  i.min = i.max = std::numeric_limits<double>::quiet_NaN();
  i.n = v.reference_runs + v.current_runs;
  i.coverage = 0.95;
  i.method = stats::IntervalMethod::t_over_runs;
  return to_json(i);
}

}  // namespace

json regress_to_json(const RegressSummary& s) {
  json rows = json::array();
  for (const auto& r : s.rows) {
    json row = {{"scenario", r.scenario},
                {"metric", to_string(r.metric)},
                {"unit", metric_unit(r.metric)},
                {"gating", r.gating},
                {"verdict", to_string(r.outcome)},
                {"reference_level", number_or_null(r.reference_median)},
                {"reference_runs", r.reference_runs},
                {"level_runs", r.level_runs},
                {"reference_repeats", r.reference_n},
                {"current_median", number_or_null(r.current_median)},
                {"current_runs", r.current_runs},
                {"current_repeats", r.current_n},
                {"change", number_or_null(r.change)},
                {"interval", change_interval(r)},
                {"p_one_sided_worse", number_or_null(r.p)},
                // As compare.json: a number, null where no test ran (like p) or
                // infinite (the normal, a known noise; JSON has no infinity).
                {"df", std::isfinite(r.p) && r.df > 0 ? number_or_null(r.df) : json(nullptr)},
                {"note", r.note},
                {"history_steps", r.steps},
                {"left_out", r.left_out}};
    if (r.outcome == Outcome::regressed) row["what_changed"] = what_changed_json(r.what_changed);
    rows.push_back(std::move(row));
  }
  return {{"schema", "ftbench.regress/1"},
          {"current", s.current},
          {"reference", s.reference},
          {"from_history", s.from_history},
          {"rule", s.rule},
          {"regressed", s.regressed()},
          {"rows", std::move(rows)},
          {"notes", s.notes}};
}

}  // namespace ftb
