// The scenario table: one row per scenario file, in report order. Adding a
// scenario = a new file defining `ScenarioInfo xxx_scenario()` + one row in
// registry.cpp; the registry-driven tests pick it up.
#pragma once

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace ftb {

const std::vector<ScenarioInfo>& scenario_registry();
// By name or alias; nullptr when unknown.
const ScenarioInfo* find_scenario(const std::string& name);
// Resolves --scenarios (empty = all); InputError naming --scenarios when a
// name is unknown.
std::vector<const ScenarioInfo*> select_scenarios(const std::vector<std::string>& names);

// Scenario definitions (one per file).
ScenarioInfo baseline_scenario();
ScenarioInfo fused_adam_scenario();
ScenarioInfo trainer_scenario();
ScenarioInfo amp_scenario();
ScenarioInfo amp_bf16_scenario();
ScenarioInfo cuda_graph_scenario();
ScenarioInfo ddp_scenario();
ScenarioInfo sharded_scenario();
ScenarioInfo zero2_scenario();
ScenarioInfo zero2_offload_scenario();
ScenarioInfo zero3_scenario();
ScenarioInfo zero3_offload_scenario();
ScenarioInfo fabric_scenario();
ScenarioInfo peer_scenario();
ScenarioInfo peer_amp_scenario();
ScenarioInfo peer_amp_compiled_scenario();
ScenarioInfo bucketed_scenario();
ScenarioInfo fastest_scenario();
ScenarioInfo largest_batch_scenario();
ScenarioInfo cuda_graph_bf16_scenario();
ScenarioInfo cuda_graph_fp16_scenario();

}  // namespace ftb
