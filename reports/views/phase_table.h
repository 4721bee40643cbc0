// Where the time goes: one row per measured result, the share of each phase
// (result.phases) in percent and the seconds they add up to. Its own table
// under the speed-up table (a column per phase would make that one unreadable).
#pragma once

#include "reports/record/report.h"
#include "reports/views/table.h"

#include <optional>

namespace ftb {

// nullopt when no result has phases (reports written before they existed).
std::optional<ResultTable> phase_table(const Report& report);

}  // namespace ftb
