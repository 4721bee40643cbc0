// Exporters: one report's figures in the formats continuous-benchmarking
// services read, so a nightly job can feed them without a converter.
//
//  customBiggerIsBetter / customSmallerIsBetter
//      github-action-benchmark's custom tools: a JSON array of
//      {"name", "unit", "value", "range", "extra"} (name, unit, value
//      required; range a string the action parses as "± <number>"; extra
//      free text shown in the tooltip). Bigger: train_samples_per_s and
//      steady_samples_per_s (samples/s); smaller: wall_time_s (s) and
//      step_ms_median (ms). One entry per ok scenario and metric, named
//      "<preset>/<scenario>/<metric>"; value the median over repeats, range
//      "± " half the width of its interval (order statistics, coverage in the
//      report), extra the interval itself,
//      the repeats, device, precision, world size, machine and commit.
//  bmf
//      Bencher Metric Format: {"<preset>/<scenario>": {"<measure>": {"value",
//      "lower_value", "upper_value"}}}, lower/upper the 95 % CI from the
//      report's intervals. Measures: "throughput" (Bencher's built-in, ops/s:
//      train samples/s), "latency" (built-in, nanoseconds: the median
//      steady-state step), and "steady-throughput" (samples/s) and
//      "wall-time" (seconds), created by Bencher on first use.
//
// Google Benchmark JSON is what bench/micro's ftb_micro already writes with
// --benchmark_format=json (github-action-benchmark's `googlecpp` tool);
// there is nothing to convert.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "reports/record/report.h"

namespace ftb {

enum class ExportFormat { github_bigger, github_smaller, bmf };

// "customBiggerIsBetter" | "customSmallerIsBetter" | "bmf"; InputError naming `flag`.
ExportFormat parse_export_format(const std::string& text, const std::string& flag);
std::string to_string(ExportFormat f);

nlohmann::json export_report(const Report& report, ExportFormat f);

}  // namespace ftb
