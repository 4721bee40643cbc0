#include "scenarios/registry.h"

#include <algorithm>

#include "core/base/errors.h"

namespace ftb {

const std::vector<ScenarioInfo>& scenario_registry() {
  // Explicit table, not static self-registration: deterministic order, one
  // place to grep, nothing for the linker to drop from a static library.
  static const std::vector<ScenarioInfo> table = {
      baseline_scenario(),
      fused_adam_scenario(),
      trainer_scenario(),
      amp_scenario(),
      amp_bf16_scenario(),
      bucketed_scenario(),
      cuda_graph_scenario(),
      cuda_graph_bf16_scenario(),
      cuda_graph_fp16_scenario(),
      ddp_scenario(),
      sharded_scenario(),
      zero2_scenario(),
      zero2_offload_scenario(),
      zero3_scenario(),
      zero3_offload_scenario(),
      fabric_scenario(),
      peer_scenario(),
      peer_amp_scenario(),
      peer_amp_compiled_scenario(),
      fastest_scenario(),
      largest_batch_scenario(),
  };
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
