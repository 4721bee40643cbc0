#include "reports/views/console_table.h"

#include <cmath>
#include <vector>

#include "core/base/text_format.h"
#include "reports/analysis/accuracy_verdict.h"
#include "reports/analysis/intervals.h"
#include "reports/views/profile_views.h"
#include "reports/views/table.h"

namespace ftb {
namespace {

std::string number(double v, const char* fmt) {
  return std::isfinite(v) && v > 0 ? format_double(fmt, v) : "-";
}

// The keeps-accuracy verdict's word; "-" for baseline and where hits were not kept.
std::string keeps_word(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  const auto v = accuracy_vs_baseline(report, r, baseline);
  return v ? to_string(v->keeps) : "-";
}

}  // namespace

std::string console_table(const Report& report, const std::string& baseline) {
  std::vector<std::vector<std::string>> rows = {
      {"scenario", "precision", "ranks", "wall s", "speed-up", "samples/s", "test acc %", "keeps acc", "notes"}};
  const std::vector<bool> right = {false, false, true, true, true, true, true, false, false};
  const NumberedNotes notes = numbered_notes(report, baseline);
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const ScenarioResult& r = report.results[i];
    if (r.status == Status::skipped) continue;  // in the "Not run here" list
    std::string speedup = "-";
    if (r.status == Status::failed) {
      speedup = "failed";
    } else if (const auto s = speedups_vs(report, r, baseline)) {
      speedup = format_interval(s->end_to_end, "%.2f", s->by_throughput ? "x*" : "x");
    }
    rows.push_back({r.scenario, to_string(r.precision), std::to_string(r.world_size),
                    r.status == Status::ok ? number(r.wall_time_s, "%.2f") : "-", speedup,
                    r.status == Status::ok ? number(r.train_samples_per_s, "%.1f") : "-",
                    r.status == Status::ok ? format_accuracy_compact(report, r) : "-", keeps_word(report, r, baseline),
                    notes.refs[i]});
  }
  std::string out = format_table(rows, right, TableStyle::markdown) + "\n";
  // Continuation lines start under the text: after "[n] " or "- ".
  for (std::size_t k = 0; k < notes.footnotes.size(); ++k) {
    const std::string mark = "[" + std::to_string(k + 1) + "] ";
    out += wrap_text(mark + notes.footnotes[k], kConsoleWidth, mark.size()) + "\n";
  }
  if (!notes.not_run.empty()) {
    out += "\nNot run here:\n";
    for (const auto& n : notes.not_run) out += wrap_text("- " + n, kConsoleWidth, 2) + "\n";
  }
  out += profile_console_lines(report, kConsoleWidth);
  out += "\n" + wrap_text("speed-up: " + baseline + "'s wall time over the row's; [interval; coverage] over this "
                          "run's repeats (r2r: run-to-run, from --noise). test acc: +- covers its 95 % Wilson interval on the test split's n (where the whole split was scored). keeps acc: the row against " + baseline + " example by example (paired; yes, no or cannot tell at +-" + format_double("%.3g", accuracy_min_effect_points(report.config)) + " points). Every column, the ladder, the phases and "
                          "the memory per rank: table.md and index.html.",
                          kConsoleWidth) +
         "\n";
  return out;
}

}  // namespace ftb
