// The cumulative ladder: baseline -> +one technique -> +the next -> ... ->
// the `fastest` row, each rung measured against the rung below it (not only
// against baseline), so a technique that stops helping once others are
// stacked shows. A row's stack is what it adds to baseline, as the run
// recorded it (results[].stack: its ScenarioInfo::stack, or what fastest
// stacked on that device). Rungs are the rows whose stacks nest: from baseline,
// each next rung the smallest stack that holds the previous one, up to the
// largest stack in the report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/record/report.h"
#include "reports/views/table.h"

namespace ftb {

struct LadderRung {
  const ScenarioResult* row = nullptr;
  std::vector<std::string> adds;  // techniques this rung adds to the one below ({} for baseline)
};
// Empty when the report has no ok baseline or no ok row with a stack.
std::vector<LadderRung> ladder(const Report& report, const std::string& baseline = "baseline");

// rung, row, adds, wall time, speed-up and steady speed-up over the rung
// below, speed-up over baseline, test accuracy and its change; nullopt
// without a ladder of three rungs or more (baseline and one row are the
// speed-up table's).
std::optional<ResultTable> ladder_table(const Report& report, const std::string& baseline = "baseline");

}  // namespace ftb
