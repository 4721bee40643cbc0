#include "reports/views/views.h"
#include "reports/views/run_outputs.h"

#include "core/base/files.h"
#include "reports/views/html_page.h"
#include "reports/views/report_labels.h"
#include "reports/views/vega.h"
#include "core/base/json_text.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

namespace ftb {

namespace {

// The canonical path (symlinks and "./" resolved), or the path itself when it
// does not exist: how "written by the renderer" is matched to a chart.
std::string canonical(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

// Charts of `dir` in name order, each with its SVG when the renderer wrote
// it this time (an SVG left from an earlier render may not match the spec).
std::vector<PageChart> page_charts(const std::string& dir, const std::vector<std::string>& names,
                                   const std::set<std::string>& written) {
  std::vector<PageChart> charts;
  for (const auto& name : names) {
    const std::string svg = dir + "/charts/" + name + ".svg";
    charts.push_back({name, written.count(canonical(svg)) ? read_text_file(svg) : ""});
  }
  return charts;
}

// The report's charts in kChartOrder (any other after them, by name).
std::vector<std::string> spec_names(const Report& report) {
  const auto specs = vega_specs(report);
  std::vector<std::string> names;
  for (const char* name : kChartOrder)
    if (specs.count(name)) names.push_back(name);
  for (const auto& [name, spec] : specs)
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

std::set<std::string> canonical_set(const std::vector<std::string>& paths) {
  std::set<std::string> out;
  for (const auto& p : paths) out.insert(canonical(p));
  return out;
}

std::string why_not(const RenderOutcome& o) { return o.rendered ? "" : o.why_not; }

void write_page(const ViewSet& set, const std::set<std::string>& written, const std::string& note,
                const PageLinks& extra = {}) {
  PageLinks links = extra;
  links.report_json = set.beside_report;
  write_file_atomic(set.dir + "/index.html",
                    report_page_html(*set.report, page_charts(set.dir, spec_names(*set.report), written), note, links));
}

}  // namespace

RenderOutcome write_report_views(const ViewSet& set, const Renderer& renderer) {
  if (!set.specs_written) write_table_and_chart_specs(set.dir, *set.report);
  const RenderOutcome o = render_charts(renderer, {set.dir});
  write_page(set, canonical_set(o.written), why_not(o));
  return o;
}

RenderOutcome write_comparison_views(const std::string& compare_dir, const std::vector<ViewSet>& sets,
                                     const std::vector<std::string>& labels, const Renderer& renderer) {
  std::vector<std::pair<std::string, const Report*>> labelled;
  for (size_t i = 0; i < sets.size(); ++i) {
    write_table_and_chart_specs(sets[i].dir, *sets[i].report);
    labelled.emplace_back(labels.at(i), sets[i].report);
  }
  make_directories(compare_dir + "/charts");
  write_file_atomic(compare_dir + "/charts/machines.vl.json",
                    json_file_text(machine_comparison_spec(labelled)));
  std::vector<std::string> dirs;
  for (const auto& s : sets) dirs.push_back(s.dir);
  dirs.push_back(compare_dir);
  const RenderOutcome o = render_charts(renderer, dirs);
  const std::set<std::string> written = canonical_set(o.written);
  PageLinks links;
  const std::string here = canonical(compare_dir) + "/";
  for (size_t i = 0; i < sets.size(); ++i) {
    write_page(sets[i], written, why_not(o));
    // A link relative to the comparison page when the set lies below it, else absolute.
    const std::string page = canonical(sets[i].dir) + "/index.html";
    links.others.emplace_back(labels[i], page.rfind(here, 0) == 0 ? page.substr(here.size()) : "file://" + page);
  }
  write_file_atomic(compare_dir + "/index.html",
                    comparison_page_html(labelled, page_charts(compare_dir, {"machines"}, written), why_not(o), links));
  return o;
}

std::vector<std::string> comparison_labels(const std::vector<const Report*>& reports) {
  std::vector<std::string> labels;
  std::map<std::string, int> seen;
  for (const Report* r : reports) {
    const std::string base = report_machine(*r) + " (" + report_date(*r) + ")";
    const int n = ++seen[base];
    labels.push_back(n == 1 ? base : base + " #" + std::to_string(n));
  }
  return labels;
}

}  // namespace ftb
