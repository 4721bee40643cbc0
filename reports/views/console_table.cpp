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
  std::vector<std::string> footnotes;  // numbered from 1, each text once
  std::map<std::string, std::size_t> number_of;
  std::vector<std::string> not_run;
  for (const auto& r : report.results) {
    if (r.status == Status::skipped) {
      not_run.push_back(r.scenario + ": " + (r.reason.empty() ? "(no reason given)" : r.reason));
      continue;
    }
    std::string refs;
    for (const auto& n : row_notes(report, r, baseline)) {
      auto it = number_of.find(n);
      if (it == number_of.end()) {
        footnotes.push_back(n);
        it = number_of.emplace(n, footnotes.size()).first;
      }
      refs += (refs.empty() ? "" : ",") + std::to_string(it->second);
    }
    std::string speedup = "-";
    if (r.status == Status::failed) {
      speedup = "failed";
    } else if (const auto s = speedups_vs(report, r, baseline)) {
      speedup = format_interval(s->end_to_end, "%.2f", s->by_throughput ? "x*" : "x");
    }
    rows.push_back({r.scenario, to_string(r.precision), std::to_string(r.world_size),
                    r.status == Status::ok ? number(r.wall_time_s, "%.2f") : "-", speedup,
                    r.status == Status::ok ? number(r.train_samples_per_s, "%.1f") : "-",
                    r.status == Status::ok ? number(100 * r.test_acc, "%.2f") : "-", refs.empty() ? "" : "[" + refs + "]"});
  }
  std::string out = format_table(rows, right, TableStyle::markdown) + "\n";
  for (std::size_t i = 0; i < footnotes.size(); ++i) {
    const std::string mark = "[" + std::to_string(i + 1) + "] ";
    out += wrap_text(mark + footnotes[i], kConsoleWidth, mark.size()) + "\n";
  }
  if (!not_run.empty()) {
    out += "\nNot run here:\n";
    for (const auto& n : not_run) out += wrap_text("- " + n, kConsoleWidth, 2) + "\n";
  }
  out += "\n" + wrap_text("speed-up: " + baseline + "'s wall time over the row's; [interval; coverage] over this "
                          "run's repeats (r2r: run-to-run, from --noise). Every column, the ladder, the phases and "
                          "the memory per rank: table.md and index.html.",
                          kConsoleWidth) +
         "\n";
  return out;
}

}  // namespace ftb
