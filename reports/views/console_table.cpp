#include "reports/views/console_table.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"
#include "reports/views/table.h"

namespace ftb {
namespace {

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string number(double v, const char* fmt) {
  if (!std::isfinite(v) || v <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent) {
  std::istringstream in(text);
  std::string out, line, word;
  const std::string pad(indent, ' ');
  while (in >> word) {
    if (!line.empty() && code_points(line) + 1 + code_points(word) > width) {
      out += line + "\n";
      line = pad;
    }
    line += (line.empty() || line == pad ? "" : " ") + word;
  }
  return out + line;
}

std::string console_table(const Report& report, const std::string& baseline) {
  std::vector<std::vector<std::string>> rows = {
      {"scenario", "precision", "ranks", "wall s", "speed-up", "samples/s", "test acc %", "notes"}};
  const std::vector<bool> right = {false, false, true, true, true, true, true, false};
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
                    r.status == Status::ok ? number(100 * r.test_acc, "%.2f") : "-", notes.refs[i]});
  }
  std::string out = format_table(rows, right, TableStyle::markdown) + "\n";
  for (const auto& line : note_lines(notes)) {
    if (line == "Not run here:") out += "\n";
    // Continuation lines start under the text: after "[n] " or "- ".
    const std::size_t indent = line[0] == '[' ? line.find(' ') + 1 : line[0] == '-' ? 2 : 0;
    out += wrap_text(line, kConsoleWidth, indent) + "\n";
  }
  out += "\n" + wrap_text("speed-up: " + baseline + "'s wall time over the row's; [interval; coverage] over this "
                          "run's repeats (r2r: run-to-run, from --noise). Every column, the ladder, the phases and "
                          "the memory per rank: table.md and index.html.",
                          kConsoleWidth) +
         "\n";
  return out;
}

}  // namespace ftb
