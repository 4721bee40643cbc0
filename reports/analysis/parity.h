// Parity: the difference between two rows must be the technique and nothing
// else. For each row, the settings in which it differs from baseline beyond
// what its technique changes (the result's technique_settings, as the build
// that ran it defined them): optimizer
// kernels, precision, ranks, threads, device. And the settings every row of
// the run shares (batch per rank, sequence length, padding, data), stated
// once. Written into report.json ("parity") and the table's notes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/record/report.h"
#include "scenarios/result.h"

namespace ftb {

struct ParityDifference {
  RowSetting setting;
  std::string row, baseline;  // the values, as the report writes them
};

// Differences of `r` from `baseline` that its technique does not account for
// (a row with no technique settings: every difference). Empty when
// r or the baseline is not ok, or r is the baseline.
std::vector<ParityDifference> parity_differences(const Report& report, const ScenarioResult& r,
                                                 const std::string& baseline);
// "precision fp16-mixed (baseline fp32); threads 1 (baseline 2)"
std::string describe(const std::vector<ParityDifference>& d, const std::string& baseline);
// {"baseline", "differs": [{"setting", "row", "baseline"}], "technique": [...]}
nlohmann::json parity_json(const Report& report, const ScenarioResult& r, const std::string& baseline);
// The settings every row shares, from the report's config:
// "batch 32 per rank, max_length 128, padding longest, data synthetic"
std::string shared_settings(const Report& report);

}  // namespace ftb
