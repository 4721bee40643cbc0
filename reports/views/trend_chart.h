// The trend chart of one scenario's metric over the history: a Vega-Lite v5
// spec with its data inlined (like reports/views/vega.h's), one tick per run
// labelled by its UTC date, time and commit, one line per machine, the run
// medians with their order-statistic intervals as error bars, the reference
// level each run was judged against with the +-min_effect band around it,
// change points as dashed rules, and each run's verdict marked (red downward
// triangle: regressed; green upward: improved; orange ring: cannot tell).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/analysis/trend.h"

namespace ftb {

nlohmann::json trend_chart(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points,
                           const TrendOptions& o);

// "trend_<scenario>.vl.json", the scenario name made file-safe.
std::string trend_chart_file_name(const std::string& scenario);

}  // namespace ftb
