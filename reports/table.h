// The speed-up table: one row per result, in report order. Pure functions of
// the report; the same text goes to table.md and to the terminal.
#pragma once

#include "reports/report.h"

#include <optional>
#include <string>

namespace ftb {

// baseline wall time / r's wall time, or nullopt when r is not ok, or the
// baseline is missing, not ok, or has no positive wall time.
std::optional<double> speedup_vs_baseline(const Report& report, const ScenarioResult& r,
                                          const std::string& baseline = "baseline");

// A GitHub-flavoured Markdown table with columns padded so it also reads as
// plain text. Accuracies and MFU are fractions in the record, percent here.
// Skipped and failed rows show "-" for every measurement and the reason in
// the last column.
std::string speedup_table_markdown(const Report& report, const std::string& baseline = "baseline");

// The terminal's table: the Markdown table (already aligned).
std::string result_table_text(const Report& report, const std::string& baseline = "baseline");

}  // namespace ftb
