// The comparison chart: per scenario, B/A throughput with its 95 % interval
// as an error bar, a rule at 1.0 (above = B faster) and the rule's
// +-min_effect band, one panel per metric, coloured by verdict, one shape per
// compared report; the log axis fits the data and the band. A Vega-Lite v5 spec with the data inlined,
// like the run's charts (reports/views/vega.h), rendered by the same tools.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "reports/analysis/compare.h"

namespace ftb {

nlohmann::json compare_chart_spec(const std::vector<PairComparison>& pairs, const CompareRule& rule = {});

}  // namespace ftb
