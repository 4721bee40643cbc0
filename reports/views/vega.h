// Vega-Lite v5 chart specs with the data inlined from the report, so a chart
// can be rendered (vl-convert, the online editor) or re-made from an old
// report.json with no other input. Every chart's subtitle names the machine,
// the preset and the date; bars are coloured by precision and carry their
// 95 % interval; a skipped or failed row keeps its place on the scenario axis
// as a labelled placeholder ("skipped", "failed"), and a line chart lists
// the rows it cannot draw in its subtitle: nothing is dropped silently.
#pragma once

#include "reports/record/report.h"
#include "reports/views/report_labels.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ftb {

inline constexpr const char* kVegaLiteSchema = "https://vega.github.io/schema/vega-lite/v5.json";
// Title and subtitle lines wrapped at spaces to at most this many characters:
// Vega does not wrap a title, and a reader's browser font may run wider than
// the renderer's (tests/page_images_check.py finds a line past the picture).
inline constexpr std::size_t kTitleLineChars = 60;
// Each line wrapped at spaces to at most `width` characters (a longer word
// stays whole), as a JSON array of lines.
nlohmann::json wrapped_lines(const std::vector<std::string>& lines, std::size_t width = kTitleLineChars);
// Points per scenario in the loss chart: enough to show the curve, small
// enough that a 3-epoch paper run (8,748 steps) stays a light file.
inline constexpr size_t kLossChartMaxPoints = 500;

// name -> spec. Names (= charts/<name>.vl.json):
//   speedup        end-to-end and steady-state speed-up vs baseline, with
//                  intervals; "*" where end-to-end came from samples/s
//   wall_time      wall time with its interval
//   throughput     training samples/s with its interval
//   test_accuracy  test accuracy
//   epochs         train/val loss and accuracy per epoch
//   loss           training loss per sample seen (x = cumulative samples
//                  over all ranks; evenly subsampled to kLossChartMaxPoints)
//   step_time      distribution of the recorded step times after warm-up
//                  (box p25-p75, median, whiskers p1-p99)
//   profile        ms per profiled step by operator category, stacked, per
//                  row (only in reports with profiles: profile_views.h;
//                  not in kChartOrder, which every report has: after them)
// Bars and boxes are in report order. kChartOrder: the order a page shows them.
inline constexpr const char* kChartOrder[] = {"speedup", "wall_time", "throughput", "test_accuracy",
                                              "epochs",  "loss",      "step_time"};
std::map<std::string, nlohmann::json> vega_specs(const Report& report, const std::string& baseline = "baseline");

// Several reports (machines, builds): training samples/s by scenario, one
// bar colour per label. `labelled`: (label, report), labels distinct.
nlohmann::json machine_comparison_spec(const std::vector<std::pair<std::string, const Report*>>& labelled);

}  // namespace ftb
