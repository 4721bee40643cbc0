// The table `ftbench run` prints at its end: what a terminal of 120 columns
// shows without wrapping. The rows that ran (ok or failed) with the figures
// a reader scans first (precision, ranks, wall time, the end-to-end speed-up
// with its interval, samples/s, test accuracy), every note as a numbered
// footnote under the table (the same note, one number), and the rows that
// could not run here in one "not run here" list with their reasons. Every
// column of every row stays in table.md and index.html.
#pragma once

#include <string>

#include "reports/record/report.h"

namespace ftb {

inline constexpr std::size_t kConsoleWidth = 120;

std::string console_table(const Report& report, const std::string& baseline = "baseline");

}  // namespace ftb
