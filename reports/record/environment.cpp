#include "reports/record/environment.h"

#include <algorithm>
#include <utility>

namespace ftb {

Environment::Environment(nlohmann::json facts) : facts_(std::move(facts)) {
  if (!facts_.is_object()) facts_ = nlohmann::json::object();
}

std::string Environment::string_at(const nlohmann::json& object, const char* key) const {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Environment::host() const { return string_at(facts_, "host"); }
std::string Environment::timestamp() const { return string_at(facts_, "timestamp"); }
std::string Environment::git_commit() const { return string_at(facts_, "git_commit"); }
std::string Environment::git_tree() const { return string_at(facts_, "git_tree"); }

std::string recorded_commit(const Environment& e) {
  const std::string c = e.git_commit();
  return c.empty() ? "unknown" : c;
}

std::string Environment::cpu_model() const {
  const auto* cpu = find("cpu");
  return cpu ? string_at(*cpu, "model") : "";
}

int64_t Environment::logical_cores() const {
  const auto* cpu = find("cpu");
  if (!cpu || !cpu->is_object()) return 0;
  const auto it = cpu->find("logical_cores");
  return it != cpu->end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::vector<std::string> Environment::gpu_names() const {
  std::vector<std::string> names;
  const auto* gpus = find("gpus");
  if (!gpus || !gpus->is_array()) return names;
  for (const auto& g : *gpus) {
    const bool named = g.is_object() && g.contains("name") && g.at("name").is_string();
    names.push_back(named ? g.at("name").get<std::string>() : "?");
  }
  return names;
}

const nlohmann::json* Environment::find(std::string_view key) const {
  const auto it = facts_.find(key);
  return it == facts_.end() ? nullptr : &*it;
}

void to_json(nlohmann::json& j, const Environment& e) { j = e.facts(); }
void from_json(const nlohmann::json& j, Environment& e) { e = Environment(j); }

std::string gpu_summary(const Environment& e) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& name : e.gpu_names()) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) counts.emplace_back(name, 1);
    else ++it->second;
  }
  std::string s;
  for (const auto& [name, n] : counts) s += (s.empty() ? "" : ", ") + (n > 1 ? std::to_string(n) + "x " : "") + name;
  return s;
}

std::string machine_summary(const Environment& e) {
  if (std::string gpus = gpu_summary(e); !gpus.empty()) return gpus;
  std::string s = e.cpu_model();
  if (s.empty()) s = "unknown machine";
  if (const int64_t cores = e.logical_cores(); cores > 0) s += ", " + std::to_string(cores) + " cores";
  return s;
}

}  // namespace ftb
