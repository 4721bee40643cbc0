// What regress says: the Markdown summary and regress.json.
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
#include "reports/analysis/resolution.h"
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

}  // namespace

namespace {

// Beside the regressed rows: what changed between their reference runs and
// tonight's, rows with the same answer named together.
std::string what_changed_markdown(const RegressSummary& s) {
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> groups;  // lines -> rows
  std::vector<int> reference_runs;
  for (const auto& r : s.rows) {
    if (r.outcome != stats::Verdict::worse) continue;
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

// "**Result: ...**": the gating rows that regressed (the exit code), and
// those that cannot tell (not a failure, but not "same" either).
std::string result_line(const RegressSummary& s) {
  std::string out;
  std::vector<std::string> gating;
  for (const auto& r : s.rows)
    if (r.gating && r.outcome == stats::Verdict::worse) gating.push_back(r.scenario + " " + to_string(r.metric));
  std::vector<std::string> open;  // gating rows that cannot tell: not a failure, but not "same" either
  for (const auto& r : s.rows)
    if (r.gating && r.outcome == stats::Verdict::cannot_tell) open.push_back(r.scenario + " " + to_string(r.metric));
  const std::string open_text = open.empty() ? "" : " Cannot tell for " + names_for_message(open, open.size()) +
                                                        ": too few runs to rule out a change beyond the minimum "
                                                        "effect (not a failure; the notes say what would settle it).";
  out += gating.empty() ? "**Result: no regression.**" + open_text + "\n"
                        : "**Result: REGRESSED** (" + names_for_message(gating, gating.size()) + ")." + open_text + "\n";
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
    if (r.outcome == stats::Verdict::worse) verdict = r.gating ? "**REGRESSED**" : "regressed (not gating)";
    if (r.outcome == stats::Verdict::insufficient)
      verdict = !r.judged                                   ? "not judged"
                : r.why == stats::Ruling::no_noise_estimate ? "cannot tell"
                : s.from_history                                ? "insufficient history"
                                                                : verdict;
    if (r.outcome == stats::Verdict::cannot_tell) verdict = "cannot tell (wide)";
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
  out += result_line(s);
  out += what_changed_markdown(s);
  out += "\nRule: " + s.rule + "\n";
  // Insufficient rows grouped by reason, so 9 scenarios of 3 repeats make one line.
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // reason -> what, in row order
  for (const auto& r : s.rows) {
    if (r.outcome != stats::Verdict::insufficient && r.outcome != stats::Verdict::cannot_tell) continue;
    // A scenario whose metrics all share the reason (no history at all) is named once.
    bool shared = true;
    for (const auto& o : s.rows)
      if (o.scenario == r.scenario && (o.outcome != r.outcome || o.note != r.note)) shared = false;
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

namespace {

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

// A cannot_tell row's plan (resolution.h): further baseline runs (or nights)
// and runs tonight at which the interval, from the measured noise, would
// fall on one side of the minimum effect (resolution.h's
// settling_half_width). Modelled. null on other rows.
json settle_json(const MetricVerdict& v, bool from_history) {
  if (v.outcome != stats::Verdict::cannot_tell) return nullptr;
  if (from_history)  // the nightly rule's plan: nights or runs tonight, either alone unless jointly
    return {{"more_nights", v.more_nights > 0 ? json(v.more_nights) : json(nullptr)},
            {"more_current_runs", v.more_runs > 0 ? json(v.more_runs) : json(nullptr)},
            {"jointly", v.jointly},
            {"reachable", v.more_nights > 0 || v.more_runs > 0},
            {"modelled", true}};
  const auto& r = v.resolution;
  return {{"more_reference_runs", r.more_a},
          {"more_current_runs", r.more_b},
          {"reachable", r.reachable},
          {"half_width_log", finite_or_null(r.half_width)},
          {"planned_half_width_log", finite_or_null(r.planned_half_width)},
          {"modelled", true}};
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
                {"reference_level", finite_or_null(r.reference_median)},
                {"reference_runs", r.reference_runs},
                {"level_runs", r.level_runs},
                {"reference_repeats", r.reference_n},
                {"current_median", finite_or_null(r.current_median)},
                {"current_runs", r.current_runs},
                {"current_repeats", r.current_n},
                {"change", finite_or_null(r.change)},
                {"interval", change_interval(r)},
                {"p_one_sided_worse", finite_or_null(r.p)},
                // As compare.json: a number, null where no test ran (like p) or
                // infinite (the normal, a known noise; JSON has no infinity).
                {"df", std::isfinite(r.p) && r.df > 0 ? finite_or_null(r.df) : json(nullptr)},
                {"note", r.note},
                {"cannot_tell_reason",
                 stats::cannot_tell_reason(r.why).empty() ? json(nullptr) : json(stats::cannot_tell_reason(r.why))},
                {"settle", settle_json(r, s.from_history)},
                {"history_steps", r.steps},
                {"left_out", r.left_out}};
    if (r.outcome == stats::Verdict::worse) row["what_changed"] = what_changed_json(r.what_changed);
    rows.push_back(std::move(row));
  }
  return {{"schema", "ftbench.regress/2"},
          {"current", s.current},
          {"reference", s.reference},
          {"from_history", s.from_history},
          {"rule", s.rule},
          {"regressed", s.regressed()},
          {"rows", std::move(rows)},
          {"notes", s.notes}};
}

}  // namespace ftb
