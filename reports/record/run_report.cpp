#include "reports/record/run_report.h"

namespace ftb {

Report begin_run_report(const RunStart& facts) {
  Report report;
  report.run_noise = facts.run_noise;
  if (!facts.environment.is_null()) {
    report.environment = facts.environment;
    report.environment["command_line"] = facts.command_line;
    report.environment["allocator"] = facts.allocator;
  }
  report.config = facts.config;
  report.config["workload"] = facts.workload;
  report.config["out"] = facts.out;
  return report;
}

void record_rows(Report& report, const std::vector<ScenarioResult>& results, const nlohmann::json& measured) {
  for (const auto& [key, value] : measured.items()) report.environment[key] = value;
  report.results = results;
}

}  // namespace ftb
