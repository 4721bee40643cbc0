// Measurements a report can hold at all: times, throughputs, byte counts and
// each repeat's test accuracy are finite and >= 0; the one check, made by the
// reader (report_from_json), so every command that reads a report makes it. A report that says otherwise was edited or written by
// a broken tool, and comparing or charting it would print nonsense.
#pragma once

#include <nlohmann/json.hpp>

namespace ftb {

// `results` is report.json's results array (already read by the reader, so
// every key has its type). InputError naming the JSON path of the first bad
// value: "results[3].wall_time_s: is NaN (null in the file); ...".
void check_measurements(const nlohmann::json& results);

}  // namespace ftb
