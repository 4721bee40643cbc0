// regress against the history store: the series of tonight's machine,
// preset and config, judged by the nightly rule (nightly.h).
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
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;
using namespace regress_detail;

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

}  // namespace ftb
