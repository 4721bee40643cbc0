// The scenario table. A row registers itself in its own file, where it is
// defined, with its rank: its place in `ftbench list` and in a report (so
// the ladder's ties, reports/views/ladder.h). The table sorts by rank, never
// by link or static-initialisation order:
//   ScenarioInfo baseline_scenario() { ScenarioInfo s; s.name = "baseline"; ...; return s; }
//   FTB_REGISTER_SCENARIO(baseline_scenario, 100);
// Adding a scenario = its file + its line in scenarios/CMakeLists.txt
// (docs/contributing.md); the registry-driven tests pick it up. ftb_scenarios
// is an OBJECT library, so a row that nothing calls by name is still linked
// (a static archive's member would be dropped); tests pin the order and count.
#pragma once

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace ftb {

// Every registered row, sorted by rank. Built on first use (not from another
// static initialiser); std::logic_error naming both files when two rows share
// a rank, a name or an alias.
const std::vector<ScenarioInfo>& scenario_registry();
// By name or alias; nullptr when unknown.
const ScenarioInfo* find_scenario(const std::string& name);
// Resolves --scenarios (empty = all); InputError naming --scenarios when a
// name is unknown.
std::vector<const ScenarioInfo*> select_scenarios(const std::vector<std::string>& names);

// One registration, and the registry's rule over them (its test calls it):
// sorted by rank; std::logic_error naming both files for a shared rank, name
// or alias.
struct RegisteredScenario {
  int rank;
  ScenarioInfo (*make)();
  std::string file;
};
std::vector<ScenarioInfo> table_by_rank(std::vector<RegisteredScenario> rows);
// Every registration linked in, by rank (the file is its __FILE__): a test
// holds it against the registrations the sources hold, so that no list of
// rows is kept by hand.
std::vector<RegisteredScenario> scenario_registrations();

// What FTB_REGISTER_SCENARIO defines: `make` is called once, when the table is built.
struct ScenarioRegistration {
  ScenarioRegistration(int rank, ScenarioInfo (*make)(), const char* file);
};

}  // namespace ftb

// One line after the row's ScenarioInfo function, inside namespace ftb. The
// object's name comes from the function's, so rows in one unity batch differ.
#define FTB_REGISTER_SCENARIO(make, rank) \
  static const ::ftb::ScenarioRegistration make##_registration { rank, make, __FILE__ }
