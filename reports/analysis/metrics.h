// The per-repeat metrics that history, regress, calibrate and the exporters
// speak of: one enum inside, its names (the RepeatSample field names, which
// are also the report's and the history's column names) only at the edges.
#pragma once

#include <string>
#include <vector>

#include "reports/analysis/statistics.h"
#include "scenarios/result.h"

namespace ftb {

enum class Metric { train_samples_per_s, steady_samples_per_s, wall_time_s, step_ms_median, test_acc, peak_bytes };

// Every metric, in column order.
const std::vector<Metric>& all_metrics();
std::string to_string(Metric m);
// InputError naming `flag` and the known names.
Metric parse_metric(const std::string& text, const std::string& flag);
std::string metric_unit(Metric m);  // "samples/s", "s", "ms", "fraction", "bytes"
stats::Direction metric_direction(Metric m);
double metric_value(const RepeatSample& s, Metric m);
// The metric over a result's repeats, in repeat order.
std::vector<double> metric_values(const std::vector<RepeatSample>& repeats, Metric m);

}  // namespace ftb
