#include "reports/regress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "core/text/errors.h"
#include "core/text/json_fields.h"
#include "core/text/text_format.h"
#include "reports/intervals.h"
#include "core/text/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string format_value(Metric m, double v) {
  if (!std::isfinite(v)) return "-";
  switch (m) {
    case Metric::peak_bytes: return printf_string("%.1f MiB", v / (1024.0 * 1024.0));
    case Metric::test_acc: return printf_string("%.2f %%", 100 * v);
    default: return printf_string(std::abs(v) >= 10000 ? "%.0f" : "%.4g", v) + " " + metric_unit(m);
  }
}

std::string format_p(double p) { return std::isfinite(p) ? printf_string("%.2g", p) : "-"; }

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
  }
  return "?";
}

MetricVerdict judge_metric(Metric m, const std::vector<std::vector<RepeatSample>>& reference, bool from_history,
                           const std::vector<RepeatSample>& current, const JudgeContext& ctx) {
  MetricVerdict v;
  v.metric = m;
  const std::vector<double> ref = pooled(reference, m), cur = metric_values(current, m);
  v.reference_runs = static_cast<int>(reference.size());
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
  stats::RegressionRule rule = ctx.rule;
  if (ctx.noise) rule.min_effect = std::max(rule.min_effect, ctx.noise->noise_floor);
  auto by_threshold = [&](double bad, double threshold, const std::string& how) {
    v.outcome = bad > threshold ? Outcome::regressed : -bad > threshold ? Outcome::improved : Outcome::same;
    v.note = how;
  };

  if (m == Metric::test_acc) {
    by_threshold(100 * (v.reference_median - v.current_median), ctx.tolerance_points,
                 "median drop beyond " + shortest_double(ctx.tolerance_points) + " points");
    return v;
  }
  if (m == Metric::peak_bytes) {
    by_threshold(worse, rule.min_effect, "median growth beyond " + printf_string("%.3g", 100 * rule.min_effect) + " %");
    return v;
  }

  const bool rank_can_decide = stats::mann_whitney_min_p(v.current_n, v.reference_n) < rule.rank_alpha;
  const stats::RankTest rank = stats::mann_whitney(cur, ref);
  v.p_rank = higher ? rank.p_less : rank.p_greater;
  const std::string sizes = std::to_string(v.current_n) + " vs " + std::to_string(v.reference_n) + " repeats";
  if (from_history) {
    if (v.reference_runs < ctx.min_runs) {
      v.note = "insufficient history: " + std::to_string(v.reference_runs) + " run(s) in the window, " +
               std::to_string(ctx.min_runs) + " needed";
      return v;
    }
    if (!rank_can_decide) {
      v.note = sizes + ": a rank test cannot reach p < " + shortest_double(rule.rank_alpha) + "; add repeats";
      return v;
    }
    const stats::Verdict j = stats::judge(ref, cur, metric_direction(m), rule);
    v.p_noise = higher ? j.noise.p_less : j.noise.p_greater;
    v.outcome = j.regressed ? Outcome::regressed : j.improved ? Outcome::improved : Outcome::same;
    v.note = "z vs history (sigma " + printf_string("%.2g", j.noise.sigma_log) + ") + rank test + min effect " +
             printf_string("%.3g", 100 * rule.min_effect) + " %";
    return v;
  }

  // One baseline report.
  const double sigma = ctx.noise ? ctx.noise->cv_repeats : 0;
  if (sigma > 0) {
    const stats::NoiseTest z = stats::z_with_sigma(ref, cur, sigma);
    v.p_noise = higher ? z.p_less : z.p_greater;
    const double p_better = higher ? z.p_greater : z.p_less;
    const double rank_better = higher ? rank.p_greater : rank.p_less;
    // The rank test must agree when these sizes let it; with 1-2 repeats only
    // the calibrated z-test can speak.
    const bool rank_worse = !rank_can_decide || v.p_rank < rule.rank_alpha;
    const bool rank_improved = !rank_can_decide || rank_better < rule.rank_alpha;
    v.outcome = v.p_noise < rule.alpha && rank_worse && worse > rule.min_effect      ? Outcome::regressed
                : p_better < rule.alpha && rank_improved && -worse > rule.min_effect ? Outcome::improved
                                                                                     : Outcome::same;
    v.note = "z with calibrated sigma " + printf_string("%.2g", sigma) +
             (rank_can_decide ? " + rank test" : " (rank test n/a: " + sizes + ")") + " + min effect " +
             printf_string("%.3g", 100 * rule.min_effect) + " %";
    return v;
  }
  if (!rank_can_decide) {
    v.note = sizes + ": the noise cannot be estimated from one baseline and a rank test cannot reach p < " +
             shortest_double(rule.rank_alpha) + "; use --repeats 5, a --history, or --noise from `ftbench calibrate`";
    return v;
  }
  const double rank_better = higher ? rank.p_greater : rank.p_less;
  v.outcome = v.p_rank < rule.rank_alpha && worse > rule.min_effect        ? Outcome::regressed
              : rank_better < rule.rank_alpha && -worse > rule.min_effect ? Outcome::improved
                                                                          : Outcome::same;
  v.note = "rank test + min effect " + printf_string("%.3g", 100 * rule.min_effect) + " % (no noise estimate)";
  return v;
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
  c.rule = o.rule;
  c.min_runs = o.min_runs;
  c.tolerance_points = accuracy_tolerance_points(current.config);
  return c;
}

std::string rule_text(const RegressOptions& o) {
  std::string gates;
  for (Gate g : o.fail_on) gates += (gates.empty() ? "" : ", ") + to_string(g);
  return "gating: " + gates + ". Throughput regresses when tonight is worse by more than " +
         printf_string("%.3g", 100 * o.rule.min_effect) + " % with a one-sided z-test against the reference's noise " +
         "at " + shortest_double(o.rule.alpha) + " and a Mann-Whitney test at " + shortest_double(o.rule.rank_alpha) +
         "; accuracy when the median test accuracy drops beyond the preset's tolerance; memory when the median "
         "peak grows beyond the minimum effect." +
         (o.noise ? " Calibrated noise from " + o.noise_path +
                        " (ftbench calibrate): each minimum effect raised to its noise floor; against a baseline "
                        "report the z-test uses the calibrated sigma."
                  : std::string());
}

void judge_scenarios(RegressSummary& s, const Report& current, const RegressOptions& o,
                     const std::function<std::vector<std::vector<RepeatSample>>(const std::string&)>& reference,
                     bool from_history) {
  const JudgeContext base = context_for(o, current);
  for (const auto& r : current.results) {
    if (r.status != Status::ok) {
      s.notes.push_back(r.scenario + ": " + to_string(r.status) + " tonight (" + r.reason + "), not judged");
      continue;
    }
    const auto ref = reference(r.scenario);
    for (Gate g : {Gate::throughput, Gate::accuracy, Gate::memory}) {
      JudgeContext c = base;
      c.noise = o.noise ? find_noise(*o.noise, r.scenario, gate_metric(g)) : nullptr;
      MetricVerdict v = judge_metric(gate_metric(g), ref, from_history, r.repeats, c);
      v.scenario = r.scenario;
      v.gating = o.fail_on.count(g) > 0;
      s.rows.push_back(std::move(v));
    }
  }
}

}  // namespace

RegressSummary regress_vs_history(const HistoryStore& store, const std::string& store_path, const json& current_json,
                                  const std::string& current_where, const RegressOptions& o) {
  const Report current = read_checked(current_json, current_where);
  const RunKey key = run_key(current, current_where, o.machine);
  const std::string exclude = report_hash(current_json);
  check_noise_matches(o, key, current_where);

  // A report of another preset or config than every run of its machine is a
  // mistake to name, not an empty window to shrug at.
  const auto on_machine = store.runs_on_machine(key.machine, exclude);
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

  RegressSummary s;
  s.current = current_where;
  s.reference = "history " + store_path + " (last " + std::to_string(o.window) + " runs of machine '" + key.machine +
                "', preset '" + key.preset + "', config " + key.config_hash + ")";
  s.rule = rule_text(o);
  if (on_machine.empty()) s.notes.push_back("no run of machine '" + key.machine + "' in the history yet");
  judge_scenarios(
      s, current, o,
      [&](const std::string& scenario) {
        std::vector<std::vector<RepeatSample>> runs;
        for (auto& r : store.window(key, scenario, o.window, exclude)) runs.push_back(std::move(r.repeats));
        return runs;
      },
      true);
  return s;
}

RegressSummary regress_vs_baseline(const json& baseline_json, const std::string& baseline_where,
                                   const json& current_json, const std::string& current_where,
                                   const RegressOptions& o) {
  const Report baseline = read_checked(baseline_json, baseline_where);
  const Report current = read_checked(current_json, current_where);
  const RunKey bk = run_key(baseline, baseline_where, o.machine), ck = run_key(current, current_where, o.machine);
  if (bk.preset != ck.preset)
    input_error(current_where, "preset '" + ck.preset + "' differs from the baseline's '" + bk.preset + "' (" +
                                   baseline_where + ")");
  if (bk.config_hash != ck.config_hash)
    input_error(current_where, "config differs from the baseline's (" + baseline_where + "): " +
                                   names_for_message(config_differences(baseline.config, current.config), 4));
  check_noise_matches(o, ck, current_where);
  RegressSummary s;
  s.current = current_where;
  s.reference = "baseline " + baseline_where;
  s.from_history = false;
  s.rule = rule_text(o);
  if (bk.machine != ck.machine)
    s.notes.push_back("the baseline ran on '" + bk.machine + "', tonight on '" + ck.machine + "'");
  judge_scenarios(
      s, current, o,
      [&](const std::string& scenario) {
        std::vector<std::vector<RepeatSample>> runs;
        const ScenarioResult* r = find_result(baseline, scenario);
        if (r && r->status == Status::ok && !r->repeats.empty()) runs.push_back(r->repeats);
        return runs;
      },
      false);
  return s;
}

std::string regress_markdown(const RegressSummary& s) {
  std::string out = "## ftbench regress\n\n";
  out += "- current: " + s.current + "\n- reference: " + s.reference + "\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"scenario", "metric", "reference median", "current median", "change", "p (z)", "p (rank)", "verdict"}};
  for (const auto& r : s.rows) {
    std::string verdict = to_string(r.outcome);
    if (r.outcome == Outcome::regressed) verdict = r.gating ? "**REGRESSED**" : "regressed (not gating)";
    if (r.outcome == Outcome::insufficient && s.from_history) verdict = "insufficient history";
    const std::string ref = format_value(r.metric, r.reference_median) +
                            (r.reference_n ? " (" + std::to_string(r.reference_runs) +
                                                 (r.reference_runs == 1 ? " run, n=" : " runs, n=") +
                                                 std::to_string(r.reference_n) + ")"
                                           : "");
    rows.push_back({r.scenario, to_string(r.metric) + (r.gating ? "" : " (not gating)"), ref,
                    format_value(r.metric, r.current_median) + " (n=" + std::to_string(r.current_n) + ")",
                    std::isfinite(r.change) ? printf_string("%+.1f %%", 100 * r.change) : "-", format_p(r.p_noise),
                    format_p(r.p_rank), verdict});
  }
  out += format_table(rows, {false, false, true, true, true, true, true, false}, TableStyle::markdown);
  out += "\n";
  std::vector<std::string> gating;
  for (const auto& r : s.rows)
    if (r.gating && r.outcome == Outcome::regressed) gating.push_back(r.scenario + " " + to_string(r.metric));
  out += gating.empty() ? "**Result: no regression.**\n"
                        : "**Result: REGRESSED** (" + names_for_message(gating, gating.size()) + ").\n";
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
  for (const auto& [reason, what] : reasons) notes.push_back(names_for_message(what, 4) + ": " + reason);
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : notes) out += "- " + n + "\n";
  }
  return out;
}

}  // namespace ftb
