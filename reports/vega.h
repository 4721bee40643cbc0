// Vega-Lite v5 chart specs with the data inlined from the report, so a chart
// can be rendered (vl-convert, the online editor) or re-made from an old
// report.json with no other input. Only ok results are plotted; the table
// carries the skipped and failed rows with their reasons.
#pragma once

#include "reports/report.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace ftb {

inline constexpr const char* kVegaLiteSchema = "https://vega.github.io/schema/vega-lite/v5.json";
// Points per scenario in the loss chart: enough to show the curve, small
// enough that a 3-epoch paper run (8,748 steps) stays a light file.
inline constexpr size_t kLossChartMaxPoints = 500;

// name -> spec; names: speedup, wall_time, throughput, test_accuracy, loss.
// Bars are in report order; the loss chart plots the recorded steps of each
// result (evenly subsampled to kLossChartMaxPoints, first and last kept).
std::map<std::string, nlohmann::json> vega_specs(const Report& report,
                                                 const std::string& baseline = "baseline");

}  // namespace ftb
