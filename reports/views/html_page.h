// index.html: one self-contained page per report (and one for a comparison
// of several) that works offline: the charts are inlined SVG, the style is
// inline, there is no script and nothing is fetched. Pure functions of their
// inputs: the caller reads the SVG files and writes the page (reports/views/views.h).
#pragma once

#include "reports/record/report.h"

#include <string>
#include <utility>
#include <vector>

namespace ftb {

// &, <, >, " and ' as entities: safe in text and in quoted attributes.
std::string html_escape(const std::string& text);

struct PageChart {
  std::string name;  // charts/<name>.vl.json
  std::string svg;   // the rendered SVG, "" when not rendered
};

struct PageLinks {
  bool report_json = false;  // report.json and steps.csv sit beside the page
  std::vector<std::pair<std::string, std::string>> others;  // (text, relative href)
};

// Title (machine, preset, date), the speed-up table and its notes (the
// table's own code, escaped), the charts (SVG inline; a chart without SVG
// names its spec and why it is not drawn), the environment and the config as
// nested key/value lists (every key, whatever it holds).
// `render_note`: "" or why SVG/PNG were not rendered (said once, at the top).
std::string report_page_html(const Report& report, const std::vector<PageChart>& charts,
                             const std::string& render_note, const PageLinks& links,
                             const std::string& baseline = "baseline");

// The comparison page: the machines chart, each report's label and subtitle,
// links to each report's own page.
std::string comparison_page_html(const std::vector<std::pair<std::string, const Report*>>& labelled,
                                 const std::vector<PageChart>& charts, const std::string& render_note,
                                 const PageLinks& links);

}  // namespace ftb
