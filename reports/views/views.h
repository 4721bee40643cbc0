// The views of a report, as `ftbench run` leaves them at its end and
// `ftbench report` re-makes them from saved reports (one implementation for
// both): table.md, charts/<name>.vl.json, charts/<name>.svg and .png (when
// the renderer runs), and index.html. Every file is written atomically.
#pragma once

#include "reports/views/render.h"
#include "reports/record/report.h"

#include <string>
#include <utility>
#include <vector>

namespace ftb {

struct ViewSet {
  std::string dir;              // where the views go (created)
  const Report* report = nullptr;
  bool beside_report = false;   // report.json and steps.csv are in `dir` (index.html links them)
  // table.md and the chart specs in `dir` are already this report's (a run
  // wrote them with its last row: run_outputs.h), so they are not written again.
  bool specs_written = false;
};

// One report: its views in set.dir. The charts are rendered in one renderer
// process; RenderOutcome says whether, and why not (the page says it too).
RenderOutcome write_report_views(const ViewSet& set, const Renderer& renderer);

// Several reports: each set's views, plus in compare_dir the machine
// comparison chart (charts/machines.*, one bar colour per label) and an
// index.html that links each set's page. labels[i] names sets[i]. All the
// charts are rendered in one renderer process.
RenderOutcome write_comparison_views(const std::string& compare_dir, const std::vector<ViewSet>& sets,
                                     const std::vector<std::string>& labels, const Renderer& renderer);

// Distinct labels for a comparison: the machine and date of each report,
// with " #2", " #3"... where two reports would share one.
std::vector<std::string> comparison_labels(const std::vector<const Report*>& reports);

}  // namespace ftb
