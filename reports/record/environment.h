// The machine and the run's circumstances, as report.json's "environment"
// records them: what core/measure/environment.h captures, plus what the sweep
// measures (matmul peaks, warm-up, loader, round orders) and the command line.
// One type for every reader: the facts tables, compare and history name
// (host, commit, CPU, GPUs) through accessors, anything else through find();
// the JSON goes back out as it came in.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ftb {

class Environment {
 public:
  Environment() = default;
  Environment(nlohmann::json facts);  // NOLINT: a JSON object converts (tests, the writer)

  // Recorded strings; "" when absent or not a string.
  std::string host() const;
  std::string timestamp() const;   // ISO 8601, UTC
  std::string git_commit() const;  // the build's tree
  std::string git_tree() const;    // clean | dirty | unknown
  std::string cpu_model() const;
  int64_t logical_cores() const;   // 0 when not recorded
  std::vector<std::string> gpu_names() const;  // in index order; "?" for a GPU whose name is not recorded

  // Any recorded fact by its top-level key; nullptr when absent.
  const nlohmann::json* find(std::string_view key) const;
  // Writers add facts (the sweep's measurements, the command line).
  nlohmann::json& operator[](const std::string& key) { return facts_[key]; }
  const nlohmann::json& facts() const { return facts_; }
  nlohmann::json& facts() { return facts_; }

  bool operator==(const Environment& other) const { return facts_ == other.facts_; }

 private:
  std::string string_at(const nlohmann::json& object, const char* key) const;
  nlohmann::json facts_ = nlohmann::json::object();
};

void to_json(nlohmann::json& j, const Environment& e);
void from_json(const nlohmann::json& j, Environment& e);

// The build's commit as history keeps it: git_commit(), "unknown" when absent.
std::string recorded_commit(const Environment& e);
// The GPUs by name and count, first seen first: "2x NVIDIA H200",
// "NVIDIA H200, NVIDIA A100"; "" without GPUs.
std::string gpu_summary(const Environment& e);
// What the run ran on, in a few words: its GPUs (gpu_summary), else the CPU
// ("AMD EPYC, 2 cores"), else "unknown machine".
std::string machine_summary(const Environment& e);

}  // namespace ftb
