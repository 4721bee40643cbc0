#include "reports/views/report_labels.h"

namespace ftb {

using nlohmann::json;

namespace {

const json* env_field(const Report& report, const char* a, const char* b = nullptr) {
  auto it = report.environment.find(a);
  if (it == report.environment.end()) return nullptr;
  if (!b) return &*it;
  if (!it->is_object()) return nullptr;
  auto jt = it->find(b);
  return jt == it->end() ? nullptr : &*jt;
}

}  // namespace

std::string report_machine(const Report& report) {
  if (const json* gpus = env_field(report, "gpus"); gpus && gpus->is_array() && !gpus->empty()) {
    // Name the GPUs as the report lists them: "4x NVIDIA A100", or each one when they differ.
    std::vector<std::pair<std::string, int>> names;
    for (const auto& g : *gpus) {
      const std::string name = g.is_object() && g.contains("name") && g["name"].is_string() ? g["name"].get<std::string>()
                                                                                            : "GPU";
      if (!names.empty() && names.back().first == name) ++names.back().second;
      else names.emplace_back(name, 1);
    }
    std::string s;
    for (const auto& [name, n] : names) s += (s.empty() ? "" : " + ") + (n > 1 ? std::to_string(n) + "x " : "") + name;
    return s;
  }
  std::string s = "unknown machine";
  if (const json* model = env_field(report, "cpu", "model"); model && model->is_string() && !model->empty())
    s = model->get<std::string>();
  if (const json* cores = env_field(report, "cpu", "logical_cores"); cores && cores->is_number_integer())
    s += ", " + std::to_string(cores->get<int64_t>()) + " cores";
  return s;
}

std::string report_date(const Report& report) {
  const json* t = env_field(report, "timestamp");
  if (!t || !t->is_string() || t->get<std::string>().size() < 10) return "date unknown";
  return t->get<std::string>().substr(0, 10);
}

std::string report_preset(const Report& report) {
  auto it = report.config.find("preset");
  return it != report.config.end() && it->is_string() ? it->get<std::string>() : "preset unknown";
}

std::string report_subtitle(const Report& report) {
  return report_machine(report) + " · preset " + report_preset(report) + " · " + report_date(report);
}

}  // namespace ftb
