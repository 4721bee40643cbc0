#include "reports/views/report_labels.h"

namespace ftb {

using nlohmann::json;

std::string report_machine(const Report& report) { return machine_summary(report.environment); }

std::string report_date(const Report& report) {
  const std::string t = report.environment.timestamp();
  return t.size() < 10 ? "date unknown" : t.substr(0, 10);
}

std::string report_preset(const Report& report) {
  auto it = report.config.find("preset");
  return it != report.config.end() && it->is_string() ? it->get<std::string>() : "preset unknown";
}

std::string report_subtitle(const Report& report) {
  return report_machine(report) + " · preset " + report_preset(report) + " · " + report_date(report);
}

}  // namespace ftb
