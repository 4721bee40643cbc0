// The operator profiles of a report (`ftbench run --profile`): a table of
// each profiled row's top operators, its categories and, against baseline,
// what accounts for the change in step time; a stacked Vega-Lite chart of
// the categories per row; one console line per row. Reports without
// profiles get none of them (nullopt, no chart, ""), so they render as before.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "reports/record/report.h"
#include "reports/views/table.h"

namespace ftb {

inline constexpr std::size_t kTopOperators = 3;

// nullopt when no row carries a profile with steps.
std::optional<ResultTable> profile_table(const Report& report, const std::string& baseline = "baseline");
// The chart "profile" (charts/profile.vl.json): per row, a stacked bar of
// ms per profiled step by category; nullopt without profiles.
std::optional<nlohmann::json> profile_chart_spec(const Report& report, const std::string& subtitle);
// For the console: "profiled (untimed): baseline: aten::mm 31 %, ..." lines; "" without profiles.
std::string profile_console_lines(const Report& report, std::size_t width);

}  // namespace ftb
