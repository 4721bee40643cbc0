#include "scenarios/registry.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/base/errors.h"

namespace ftb {

namespace {

// A function's static: constructed by the first registration, whichever
// file's static initialiser runs first.
std::vector<RegisteredScenario>& registered_rows() {
  static std::vector<RegisteredScenario> rows;
  return rows;
}

}  // namespace

std::vector<ScenarioInfo> table_by_rank(std::vector<RegisteredScenario> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const RegisteredScenario& a, const RegisteredScenario& b) { return a.rank < b.rank; });
  std::vector<ScenarioInfo> table;
  std::map<std::string, std::string> file_of;  // name or alias -> the file that registered it
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i].rank == rows[i - 1].rank)
      throw std::logic_error(rows[i - 1].file + " and " + rows[i].file + " register the same scenario rank " +
                             std::to_string(rows[i].rank));
    table.push_back(rows[i].make());
    std::vector<std::string> names = table.back().aliases;
    names.push_back(table.back().name);
    for (const auto& n : names) {
      const auto [at, added] = file_of.emplace(n, rows[i].file);
      if (!added)
        throw std::logic_error(at->second + " and " + rows[i].file + " both register the scenario name \"" + n + "\"");
    }
  }
  return table;
}

ScenarioRegistration::ScenarioRegistration(int rank, ScenarioInfo (*make)(), const char* file) {
  registered_rows().push_back({rank, make, file});
}

std::vector<RegisteredScenario> scenario_registrations() {
  std::vector<RegisteredScenario> rows = registered_rows();
  std::sort(rows.begin(), rows.end(),
            [](const RegisteredScenario& a, const RegisteredScenario& b) { return a.rank < b.rank; });
  return rows;
}

const std::vector<ScenarioInfo>& scenario_registry() {
  static const std::vector<ScenarioInfo> table = table_by_rank(registered_rows());
  return table;
}

const ScenarioInfo* find_scenario(const std::string& name) {
  for (const auto& s : scenario_registry()) {
    if (s.name == name) return &s;
    for (const auto& a : s.aliases)
      if (a == name) return &s;
  }
  return nullptr;
}

std::vector<const ScenarioInfo*> select_scenarios(const std::vector<std::string>& names) {
  std::vector<const ScenarioInfo*> out;
  if (names.empty()) {
    for (const auto& s : scenario_registry()) out.push_back(&s);
    return out;
  }
  for (const auto& n : names) {
    const ScenarioInfo* s = find_scenario(n);
    if (!s) {
      std::string known;
      for (const auto& r : scenario_registry()) known += (known.empty() ? "" : ", ") + r.name;
      input_error("--scenarios", "unknown scenario \"" + n + "\" (" + known + ")");
    }
    // Once each: "sharded,zero1" names one scenario (and two runs of one
    // distributed scenario would share its rendezvous keys).
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace ftb
