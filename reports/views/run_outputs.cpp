#include "reports/views/run_outputs.h"

#include "core/base/files.h"
#include "core/base/json_text.h"
#include "reports/analysis/report_json.h"
#include "reports/views/table.h"
#include "reports/views/vega.h"

namespace ftb {

void write_table_and_chart_specs(const std::string& dir, const Report& report) {
  make_directories(dir + "/charts");
  for (const auto& [name, spec] : vega_specs(report)) {
    write_file_atomic(dir + "/charts/" + name + ".vl.json", json_file_text(spec));
  }
  write_file_atomic(dir + "/table.md", speedup_table_markdown(report));
}

void write_run_outputs(const std::string& dir, const Report& report) {
  const std::string root = dir.empty() ? "." : dir;
  write_table_and_chart_specs(root, report);
  write_steps_csv(root + "/steps.csv", report.results);
  // Last, so that a report.json beside the other files means they are complete.
  write_report(root + "/report.json", report);
}

}  // namespace ftb
