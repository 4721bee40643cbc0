// The trend chart of one scenario's metric over the history: a Vega-Lite v5
// spec with its data inlined (like reports/views/vega.h's), one line per machine,
// the run medians with their 95 % intervals as error bars, and the runs the
// regress rule flags against their own history drawn as marked points (red
// downward triangles: regressed; green upward: improved).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/analysis/trend.h"

namespace ftb {

nlohmann::json trend_chart(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points, int window);

// "trend_<scenario>.vl.json", the scenario name made file-safe.
std::string trend_chart_file_name(const std::string& scenario);

}  // namespace ftb
