// The environment facts, in one table, read by compare (what differs
// between two machines) and by suspects (what changed beside a regression).
// Each fact has the words compare prints (label), the group suspects sorts
// by, and whether it decides a kernel's speed: suspects names only those;
// compare lists every fact. Order, most decisive first within the groups
// (suspects.h says why): processor, compute, libraries, driver, kernel,
// frequency, settings, data, ftbench; then what describes the machine
// without deciding a kernel (machine: memory, host, OS; measured: the
// matmul peaks, themselves a result of the facts above).
// Pure: no LibTorch, no I/O.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/record/environment.h"

namespace ftb {

// What a run recorded that can decide its speed.
struct RunFacts {
  Environment environment;
  nlohmann::json data_hash;  // config.workload.data_hash; null when not recorded
};
// From a report's environment and config.
RunFacts run_facts(const Environment& environment, const nlohmann::json& config);

// One recorded value of a fact: a dotted key ("cpu.isa.avx2") and its value
// as recorded (null: not recorded). A fact has one value, or one per key of
// an object (the ISA flags, the watched environment variables).
using EmitFact = std::function<void(const std::string& key, nlohmann::json value)>;

struct EnvironmentFact {
  const char* label;  // compare's words: "CPU model"
  const char* group;  // "processor", ...
  bool speed;         // decides a kernel's speed (suspects names it)
  std::function<void(const RunFacts&, const EmitFact&)> read;
};

const std::vector<EnvironmentFact>& environment_facts();

// A recorded value as suspects prints it: strings as they are, booleans
// yes/no, arrays joined with ", " ("none" when empty); null is no value.
std::optional<std::string> fact_text(const nlohmann::json& v);

// A fact's values as one: its only value, or an object of its keys and
// values (null when it emitted none).
nlohmann::json fact_value(const EnvironmentFact& f, const RunFacts& run);

}  // namespace ftb
