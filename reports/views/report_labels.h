// What a report is, in words, for titles: the machine, the preset, the date.
// Charts, the HTML page and the comparison's labels all say it the same way.
#pragma once

#include "reports/record/report.h"

#include <string>

namespace ftb {

// "NVIDIA H200", "4x NVIDIA A100-SXM4-40GB", or the CPU's model with its
// cores ("AMD EPYC, 2 cores") when the report's environment lists no GPU.
std::string report_machine(const Report& report);
std::string report_date(const Report& report);    // "2026-11-30" (environment.timestamp), or "date unknown"
std::string report_preset(const Report& report);  // config.preset, or "preset unknown"
// "AMD EPYC, 2 cores · preset smoke · 2026-11-30": every chart's first subtitle line.
std::string report_subtitle(const Report& report);

}  // namespace ftb
