// The report as written: the record (reports/record/report.h) plus what is
// derived from its samples on every write and never read back: intervals
// that state their coverage, speed-ups against baseline, the accuracy guard,
// and parity (schema ftbench.report/5, reports/record/report.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "reports/record/report.h"

namespace ftb {

nlohmann::json report_to_json(const Report& report, const std::string& baseline = "baseline");

// report_to_json, written atomically (temporary file + rename).
void write_report(const std::string& path, const Report& report);

}  // namespace ftb
