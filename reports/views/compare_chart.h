// The comparison chart: per scenario, B/A throughput with its 95 % interval
// as an error bar and a rule at 1.0 (above = B faster), one panel per metric,
// one colour per compared report. A Vega-Lite v5 spec with the data inlined,
// like the run's charts (reports/views/vega.h), rendered by the same tools.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "reports/analysis/compare.h"

namespace ftb {

nlohmann::json compare_chart_spec(const std::vector<PairComparison>& pairs);

}  // namespace ftb
