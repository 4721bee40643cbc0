// What compare says: the Markdown for the console and compare.md, and
// compare.json. Pure functions of compare_reports' result.
#include "reports/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "core/base/json_fields.h"
#include "core/base/json_path.h"
#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

json interval_json(const stats::Interval& i) { return to_json(i); }

// " (host vm, 2026-11-30T22:00:29Z, commit 30d3ca349ff8)" from the environment.
std::string run_summary(const json& env) {
  const std::pair<const char*, const char*> parts[] = {{"host", "host "}, {"timestamp", ""}, {"git_commit", "commit "}};
  std::string s;
  for (const auto& [key, label] : parts) {
    const json* v = json_at_path(env, key);
    if (v && v->is_string()) s += (s.empty() ? "" : ", ") + std::string(label) + v->get<std::string>();
  }
  return s.empty() ? "" : " (" + s + ")";
}

std::string ratio_text(const MetricComparison& m) {
  if (!m.verdict) return "-";
  return format_interval(m.ratio, "%.3f", "x");
}

std::string verdict_text(const RowVerdict& v, stats::Ruling why) {
  return compare_word(v) + (v == stats::Verdict::cannot_tell && stats::interval_too_wide(why) ? " (wide)" : "");
}

std::string settle_words(const stats::Resolution& r) { return stats::settle_text(r, "runs of A", "runs of B"); }

json settle_json(const RowVerdict& v, stats::Ruling why, const stats::Resolution& r) {
  if (v != stats::Verdict::cannot_tell || !stats::interval_too_wide(why)) return nullptr;
  return {{"more_reference_runs", r.more_a},
          {"more_other_runs", r.more_b},
          {"reachable", r.reachable},
          {"half_width_log", finite_or_null(r.half_width)},
          {"planned_half_width_log", finite_or_null(r.planned_half_width)},
          {"modelled", true},
          {"text", settle_words(r)}};
}

json why_json(const RowVerdict& v, stats::Ruling why) {
  const bool open = v == stats::Verdict::cannot_tell || v == stats::Verdict::insufficient;
  return open && !stats::cannot_tell_reason(why).empty() ? json(stats::cannot_tell_reason(why)) : json(nullptr);
}

std::string status_text(const ScenarioComparison& s, bool reference) {
  if (!(reference ? s.in_reference : s.in_other)) return "not run";
  return to_string(reference ? s.reference_status : s.other_status);
}

// "A skipped: needs CUDA; B failed: ..." for rows without a ratio.
std::string status_notes(const ScenarioComparison& s) {
  if (s.in_reference && s.in_other && s.reference_status == s.other_status && s.reference_reason == s.other_reason &&
      s.reference_status != Status::ok)
    return "no ratio; both " + to_string(s.reference_status) + (s.reference_reason.empty() ? "" : ": " + s.reference_reason);
  std::string notes;
  for (const bool reference : {true, false}) {
    const bool in = reference ? s.in_reference : s.in_other;
    const Status st = reference ? s.reference_status : s.other_status;
    if (!in || st == Status::ok) continue;
    const std::string& why = reference ? s.reference_reason : s.other_reason;
    notes += std::string(notes.empty() ? "" : "; ") + (reference ? "A " : "B ") + to_string(st) +
             (why.empty() ? "" : ": " + why);
  }
  return notes.empty() ? "no ratio" : "no ratio; " + notes;
}

json side_json(const ScenarioComparison& s, bool reference) {
  const bool in = reference ? s.in_reference : s.in_other;
  if (!in) return nullptr;
  return {{"status", to_string(reference ? s.reference_status : s.other_status)},
          {"reason", reference ? s.reference_reason : s.other_reason}};
}

// Below the table: what would settle each row that cannot tell because its
// interval is too wide, rows with the same answer named together.
std::string wide_rows_markdown(const PairComparison& p, const CompareRule& rule) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // settle text -> rows
  for (const auto& s : p.scenarios)
    for (const auto& m : s.metrics) {
      if (m.verdict != stats::Verdict::cannot_tell || !stats::interval_too_wide(m.why)) continue;
      const std::string what = s.scenario + (m.metric == Metric::train_samples_per_s ? " samples/s" : " steady");
      const std::string text = settle_words(m.resolution);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
      if (it == groups.end()) groups.push_back({text, {what}});
      else it->second.push_back(what);
    }
  if (groups.empty()) return "";
  std::string out = "\nCannot tell (wide): the " + fixed(100 * rule.level, 0) +
                    " % interval still includes changes beyond " + fixed(100 * rule.min_effect, 0) +
                    " % either way and no test called one, so \"same\" cannot be said (not enough runs to see a change "
                    "that size). What would settle it: the further runs at which the interval, from the noise the runs "
                    "measured, would fall on one side of that if the ratio held (modelled; the verdict is taken again with "
                    "them):\n\n";
  for (const auto& [text, rows] : groups) {
    std::string names;
    for (size_t i = 0; i < rows.size(); ++i) names += (i ? ", " : "") + rows[i];
    out += "- " + names + ": " + text + "\n";
  }
  return out;
}

// The configs: what differs (compared anyway with --force), or that none
// does; and keys only one report records.
std::string configs_markdown(const ConfigCheck& c, bool forced) {
  std::string out;
  if (!c.differences.empty()) {
    out += std::string(forced ? "**Configs differ (compared anyway: --force):** " : "**Configs differ:** ");
    for (size_t i = 0; i < c.differences.size(); ++i) out += (i ? ", " : "") + describe(c.differences[i]);
    out += ".\n\n";
  } else {
    out += "Configs: the same in every run-relevant key.";
    out += " Not compared (run-irrelevant): ";
    const auto& ignored = run_irrelevant_config_keys();
    for (size_t i = 0; i < ignored.size(); ++i) out += (i ? ", " : "") + ignored[i];
    out += "; config.device without its index.\n\n";
  }
  if (!c.only_one.empty()) {
    out += "Recorded in one report only (an older or newer ftbench; not compared): ";
    for (size_t i = 0; i < c.only_one.size(); ++i) {
      const auto& d = c.only_one[i];
      out += (i ? ", " : "") + d.key + " (" + (d.reference.is_null() ? "B: " + value_text(d.other) : "A: " + value_text(d.reference)) + ")";
    }
    out += ".\n\n";
  }
  return out;
}

// The table: a row per scenario, both metrics' ratios and verdicts.
std::string rows_markdown(const PairComparison& p) {
  std::string out;
  std::vector<std::vector<std::string>> rows{{"scenario", "A samples/s", "B samples/s", "B/A samples/s [95 % over runs]",
                                              "verdict", "B/A steady [95 % over runs]", "verdict", "notes"}};
  for (const auto& s : p.scenarios) {
    if (!s.both_ok()) {
      rows.push_back({s.scenario, status_text(s, true), status_text(s, false), "-", "-", "-", "-", status_notes(s)});
      continue;
    }
    const auto& t = s.metrics[0];
    const auto& st = s.metrics[1];
    std::string notes;
    for (size_t i = 0; i < s.notes.size(); ++i) notes += (i ? "; " : "") + s.notes[i];
    auto side = [](double v, int runs, int repeats) {
      return fixed(v, 1) + " (" + std::to_string(runs) + (runs == 1 ? " run" : " runs") + ", n=" +
             std::to_string(repeats) + ")";
    };
    rows.push_back({s.scenario, side(t.reference, t.reference_runs, t.reference_repeats),
                    side(t.other, t.other_runs, t.other_repeats), ratio_text(t), verdict_text(t.verdict, t.why),
                    ratio_text(st), verdict_text(st.verdict, st.why), notes});
  }
  out += format_table(rows, {false, true, true, true, false, true, false, false}, TableStyle::markdown);
  out += "\n";
  return out;
}

// The geometric means over the scenarios ok in every run of both sides.
std::string geomeans_markdown(const PairComparison& p) {
  std::string out;
  for (const auto& g : p.geomeans) {
    const std::string what = g.metric == Metric::train_samples_per_s ? "samples/s" : "steady samples/s";
    out += "Geometric mean of B/A " + what + " over " + std::to_string(g.scenarios.size()) +
           " scenario(s) ok in every run of both (per run, then over runs): ";
    out += g.scenarios.empty() ? "-" : format_interval(g.ratio, "%.3f", "x");
    if (!g.note.empty()) out += " (" + g.note + ")";
    if (g.levels.basis != stats::NoiseBasis::none && !g.scenarios.empty())
      out += ", " + verdict_text(g.verdict, g.why) +
             (g.verdict == stats::Verdict::cannot_tell && stats::interval_too_wide(g.why)
                  ? ": " + settle_words(g.resolution) + " would settle it"
                  : "");
    out += ".\n";
  }
  return out;
}

// Test accuracy, B against A on the same test examples, where both kept them.
std::string accuracy_markdown(const PairComparison& p) {
  std::string rows;
  for (const auto& s : p.scenarios)
    if (s.accuracy)
      rows += "- " + s.scenario + ": keeps accuracy " + keeps_accuracy_cell(*s.accuracy) + ": " +
              explain(*s.accuracy) + "\n";
  if (rows.empty()) return "";
  return "\nTest accuracy, B - A in points, paired on the test split's examples (one seed a side: exact McNemar "
         "and Newcombe's interval on the first runs' first repeats; seed_per_repeat on both: a t interval over "
         "the seeds):\n\n" + rows;
}

// Operator profiles where both sides carry one of a row.
std::string profiles_markdown(const PairComparison& p) {
  std::string out;
  std::string profiles;
  for (const auto& s : p.scenarios)
    if (s.profile) profiles += "- " + s.scenario + ": " + describe_diff(*s.profile, 3) + "\n";
  if (!profiles.empty())
    out += "\nOperator profiles (untimed profiling passes, B - A per profiled step; each line's share is of the "
           "step's change):\n\n" + profiles;
  return out;
}

// The machines: what differs, what agrees, what neither records.
std::string environment_markdown(const EnvironmentDiff& e) {
  std::string out;
  if (e.differences.empty()) {
    out += "\nEnvironment: no difference in the keys compared.\n";
  } else {
    out += "\nEnvironment, what differs:\n\n";
    for (const auto& d : e.differences)
      out += "- " + d.key + ": A " + value_text(d.reference) + ", B " + value_text(d.other) + "\n";
  }
  out += "\nThe same in both: ";
  for (size_t i = 0; i < e.same.size(); ++i) out += (i ? ", " : "") + e.same[i];
  out += ".\n";
  if (!e.unrecorded.empty()) {
    out += "Recorded in neither: ";
    for (size_t i = 0; i < e.unrecorded.size(); ++i) out += (i ? ", " : "") + e.unrecorded[i];
    out += ".\n";
  }
  return out;
}

json metric_json(const MetricComparison& m) {
  json j = {{"verdict", compare_word(m.verdict)},
            {"cannot_tell_reason", why_json(m.verdict, m.why)},
            {"settle", settle_json(m.verdict, m.why, m.resolution)}};
  if (m.verdict) {
    j["ratio"] = interval_json(m.ratio);
    j["reference_level"] = m.reference;
    j["other_level"] = m.other;
    j["reference_runs"] = m.reference_runs;
    j["other_runs"] = m.other_runs;
    j["reference_repeats"] = m.reference_repeats;
    j["other_repeats"] = m.other_repeats;
    j["test"] = {{"basis", stats::to_string(m.levels.basis)},
                 {"df", m.levels.df},
                 {"test_df", m.levels.test_df},
                 {"log_ratio", m.levels.diff},
                 {"se", finite_or_null(m.levels.se)},
                 {"p_two_sided", std::isfinite(m.levels.p_two_sided()) ? json(m.levels.p_two_sided())
                                                                      : json(nullptr)}};
  }
  return j;
}

json scenarios_json(const PairComparison& p) {
  json scenarios = json::array();
  for (const auto& s : p.scenarios) {
    json metrics = json::object();
    for (const auto& m : s.metrics) {
      metrics[to_string(m.metric)] = metric_json(m);
    }
    scenarios.push_back({{"scenario", s.scenario},
                         {"reference", side_json(s, true)},
                         {"other", side_json(s, false)},
                         {"compared", s.both_ok()},
                         {"notes", s.notes},
                         {"metrics", std::move(metrics)}});
    if (s.profile) scenarios.back()["profile_diff"] = profile_diff_json(*s.profile);
    if (s.accuracy) scenarios.back()["accuracy"] = to_json(*s.accuracy, "A");
  }
  return scenarios;
}

json geomeans_json(const PairComparison& p) {
  json geomeans = json::object();
  for (const auto& g : p.geomeans)
    geomeans[to_string(g.metric)] = {{"ratio", g.scenarios.empty() ? json(nullptr) : interval_json(g.ratio)},
                                     {"verdict", compare_word(g.verdict)},
                                     {"cannot_tell_reason", why_json(g.verdict, g.why)},
                                     {"settle", settle_json(g.verdict, g.why, g.resolution)},
                                     {"scenarios", g.scenarios},
                                     {"note", g.note}};
  return geomeans;
}

}  // namespace

std::string compare_markdown(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced) {
  std::string out = "# ftbench compare\n\n";
  if (pairs.empty()) return out;
  out += "Reference (A): `" + pairs.front().reference_name + "`" + run_summary(pairs.front().reference_run) +
         (pairs.front().reference_runs > 1 ? ", " + std::to_string(pairs.front().reference_runs) + " runs" : "") +
         "\n\n";
  out += "Rule: " + describe(rule) + "\n";
  for (const auto& p : pairs) {
    out += "\n## B = `" + p.other_name + "` vs A\n\n";
    out += "B:" + run_summary(p.other_run) + (p.other_runs > 1 ? ", " + std::to_string(p.other_runs) + " runs" : "") +
           "\n\n";
    out += configs_markdown(p.config, forced);
    out += rows_markdown(p) + geomeans_markdown(p);
    out += wide_rows_markdown(p, rule);
    out += accuracy_markdown(p) + profiles_markdown(p) + environment_markdown(p.environment);
  }
  return out;
}

json compare_to_json(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced) {
  json comparisons = json::array();
  for (const auto& p : pairs) {
    auto diffs = [](const std::vector<KeyDifference>& v) {
      json a = json::array();
      for (const auto& d : v) a.push_back({{"key", d.key}, {"reference", d.reference}, {"other", d.other}});
      return a;
    };
    comparisons.push_back({{"reference", p.reference_name},
                           {"other", p.other_name},
                           {"reference_runs", p.reference_runs},
                           {"other_runs", p.other_runs},
                           {"config",
                            {{"comparable", p.config.comparable()},
                             {"differences", diffs(p.config.differences)},
                             {"recorded_in_one_only", diffs(p.config.only_one)}}},
                           {"scenarios", scenarios_json(p)},
                           {"geometric_mean", geomeans_json(p)},
                           {"environment",
                            {{"differences", diffs(p.environment.differences)},
                             {"same", p.environment.same},
                             {"recorded_in_neither", p.environment.unrecorded}}}});
  }
  return {{"schema", "ftbench.compare/3"},
          {"reference", pairs.empty() ? json(nullptr) : json(pairs.front().reference_name)},
          {"rule",
           {{"text", describe(rule)},
            {"level", rule.level},
            {"family_alpha", rule.family_alpha},
            {"min_effect", rule.min_effect},
            {"ratio", "other / reference; > 1 = other faster"}}},
          {"run_irrelevant_config_keys", run_irrelevant_config_keys()},
          {"forced", forced},
          {"comparisons", std::move(comparisons)}};
}

}  // namespace ftb
