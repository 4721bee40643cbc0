#include "reports/analysis/suspects.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "core/base/json_text.h"
#include "reports/analysis/profile.h"

namespace ftb {

using nlohmann::json;

namespace {

// "a | b | c"; more than three values as "first | ... | last (N values)".
std::string joined(const std::vector<std::string>& values) {
  if (values.size() > 3)
    return values.front() + " | ... | " + values.back() + " (" + std::to_string(values.size()) + " values)";
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : " | ") + v;
  return s;
}

}  // namespace

std::vector<SpeedFact> speed_facts(const RunFacts& run) {
  std::vector<SpeedFact> out;
  for (const auto& f : environment_facts())
    if (f.speed)
      f.read(run, [&](const std::string& key, json value) { out.push_back({key, f.group, fact_text(value)}); });
  return out;
}

std::string to_string(SuspectKind k) {
  switch (k) {
    case SuspectKind::environment: return "environment";
    case SuspectKind::operator_time: return "operator";
  }
  return "?";
}

std::string Suspect::text() const {
  if (kind == SuspectKind::operator_time)
    return "operator " + key + " (" + group + "): " + joined(before) + " -> " + joined(after) +
           " ms a profiled step (" + format_double("%+.1f", 1e3 * change_s) + " ms, " +
           format_double("%.0f", 100 * share) + " % of the step's change)";
  return key + " (" + group + "): " + joined(before) + " -> " + joined(after);
}

WhatChanged what_changed(const std::vector<RunFacts>& before, const std::vector<RunFacts>& after) {
  WhatChanged w;
  if (before.empty() || after.empty()) return w;
  // Every key any run has, in the table's order (first seen first within an entry).
  std::vector<std::pair<std::string, std::string>> keys;  // key, group
  std::vector<std::map<std::string, std::optional<std::string>>> b, a;
  auto collect = [&](const std::vector<RunFacts>& runs, auto& into) {
    for (const auto& r : runs) {
      into.emplace_back();
      for (auto& f : speed_facts(r)) {
        if (std::none_of(keys.begin(), keys.end(), [&](const auto& k) { return k.first == f.key; }))
          keys.emplace_back(f.key, f.group);
        into.back()[f.key] = std::move(f.value);
      }
    }
  };
  collect(before, b);
  collect(after, a);
  // Keys come out of the table in its order for each run; a key only a later
  // run has lands after its entry's others, still inside its group's place
  // once sorted by the table's group order.
  std::vector<std::string> groups;
  for (const auto& f : environment_facts())
    if (f.speed && std::find(groups.begin(), groups.end(), f.group) == groups.end()) groups.push_back(f.group);
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& x, const auto& y) {
    return std::find(groups.begin(), groups.end(), x.second) < std::find(groups.begin(), groups.end(), y.second);
  });
  for (const auto& key_group : keys) {
    const std::string& key = key_group.first;  // a plain reference: the lambdas below capture it (C++17)
    const std::string& group = key_group.second;
    bool all = true, any = false;
    std::vector<std::string> vb, va;
    auto read = [&](const auto& side, std::vector<std::string>& values) {
      for (const auto& run : side) {
        const auto it = run.find(key);
        if (it == run.end() || !it->second) {
          all = false;
          continue;
        }
        any = true;
        if (std::find(values.begin(), values.end(), *it->second) == values.end()) values.push_back(*it->second);
      }
    };
    read(b, vb);
    read(a, va);
    if (!any) continue;
    if (!all) {
      w.not_recorded.push_back(key);
      continue;
    }
    ++w.compared;
    const bool shared = std::any_of(va.begin(), va.end(),
                                    [&](const std::string& v) { return std::find(vb.begin(), vb.end(), v) != vb.end(); });
    if (!shared) w.suspects.push_back({SuspectKind::environment, key, group, vb, va});
  }
  return w;
}

std::vector<std::string> what_changed_lines(const WhatChanged& w) {
  std::vector<std::string> out;
  bool environment = false;
  for (const auto& s : w.suspects)
    if (s.kind == SuspectKind::environment) out.push_back("- " + s.text()), environment = true;
  if (!environment)
    out.push_back("- no recorded fact differs (" + std::to_string(w.compared) + " compared)");
  if (!w.not_recorded.empty())
    out.push_back("- not recorded on every side, so not compared: " + names_for_message(w.not_recorded, 6));
  bool operators = false;
  for (const auto& s : w.suspects)
    if (s.kind == SuspectKind::operator_time) {
      if (!operators && !w.profiles.empty()) out.push_back("- operators that grew, " + w.profiles + ":");
      operators = true;
      out.push_back("  - " + s.text());
    }
  if (!operators && !w.profiles.empty()) out.push_back("- operators: " + w.profiles);
  return out;
}

double step_time_growth(double change, bool rate) { return rate ? 1 / (1 + change) - 1 : change; }

void add_operator_suspects(WhatChanged& w, const OpProfile& before, const std::string& before_from,
                           const OpProfile& after, const std::string& after_from, double measured_growth) {
  const ProfileDiff d = profile_diff(before, after);
  const std::string steps = format_double("%.1f", 1e3 * d.a_step_s) + " -> " +
                            format_double("%.1f", 1e3 * d.b_step_s) + " ms a " +
                            (d.device ? "profiled step, device time" : "profiled step, host self time");
  const std::string from = "profiles of " + before_from + " and " + after_from;
  if (!d.comparable) {
    w.profiles = from + ": " + not_comparable_text(d);
    return;
  }
  // The profiled step must show the slowdown the repeats measured (at least
  // half of it): a profiled step that grew 0.1 % by noise names nothing.
  const double profiled_growth = d.a_step_s > 0 ? d.b_step_s / d.a_step_s - 1 : 0;
  if (!(d.change_s > 0) || !(profiled_growth >= kProfiledShareOfSlowdown * measured_growth)) {
    w.profiles = from + ": the profiled steps do not show the slowdown (" + steps + ", measured " +
                 format_double("%+.1f", 100 * measured_growth) + " % a step)";
    return;
  }
  w.profiles = from + ", " + steps;
  int added = 0;
  for (const auto& line : d.operators) {
    if (added == 3) break;
    if (!(line.change_s > 0)) continue;
    Suspect s;
    s.kind = SuspectKind::operator_time;
    s.key = line.name;
    s.group = to_string(op_category(line.name, "", d.device));
    s.before = {format_double("%.1f", 1e3 * line.a_step_s)};
    s.after = {format_double("%.1f", 1e3 * line.b_step_s)};
    s.before_s = line.a_step_s;
    s.after_s = line.b_step_s;
    s.change_s = line.change_s;
    s.share = line.share;
    w.suspects.push_back(std::move(s));
    ++added;
  }
}

std::optional<OpProfile> profile_in(const Report& report, const std::string& scenario) {
  const ScenarioResult* r = find_result(report, scenario);
  if (r && has_profile(r->profile)) return r->profile;
  return std::nullopt;
}

json what_changed_json(const WhatChanged& w) {
  json environment = json::array(), operators = json::array();
  for (const auto& s : w.suspects) {
    if (s.kind == SuspectKind::environment)
      environment.push_back({{"key", s.key}, {"group", s.group}, {"before", s.before}, {"after", s.after}});
    else
      operators.push_back({{"name", s.key},
                           {"category", s.group},
                           {"before_step_s", s.before_s},
                           {"after_step_s", s.after_s},
                           {"change_s", s.change_s},
                           {"share_of_change", s.share}});
  }
  return {{"environment", std::move(environment)},
          {"not_recorded", w.not_recorded},
          {"compared", w.compared},
          {"operators", std::move(operators)},
          {"profiles", w.profiles}};
}

}  // namespace ftb
