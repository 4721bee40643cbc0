// A run's folder: report.json, steps.csv, table.md and the chart specs,
// each written atomically; report.json last, so that its presence means the
// rest is complete. The rendered charts and index.html come from
// write_report_views (reports/views/views.h), once, at the end of a run.
#pragma once

#include <string>

#include "reports/record/report.h"

namespace ftb {

// Writes DIR/table.md and DIR/charts/<name>.vl.json (see vega.h); `dir` exists.
void write_table_and_chart_specs(const std::string& dir, const Report& report);

// Creates `dir` (and parents) and writes report.json, steps.csv, table.md and
// charts/<name>.vl.json.
void write_run_outputs(const std::string& dir, const Report& report);

}  // namespace ftb
