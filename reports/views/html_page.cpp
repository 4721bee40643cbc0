#include "reports/views/html_page.h"
#include "reports/views/ladder.h"
#include "reports/views/memory_table.h"
#include "reports/views/phase_table.h"
#include "reports/views/profile_views.h"

#include "reports/views/report_labels.h"
#include "reports/views/table.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

// Inline, so the page needs nothing else. System fonts only (no web fonts).
const char* const kStyle = R"(body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.1em}.subtitle{color:#555;margin-top:0}
.note{background:#fff4d6;border:1px solid #e0c060;padding:.5em .8em;border-radius:4px}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}th{background:#f3f3f3}
td.num{text-align:right;white-space:nowrap}.notes{color:#444;max-width:110ch}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}figure.chart{margin:0;max-width:100%}
figure.chart svg{max-width:100%;height:auto}
figcaption{font-size:12px;color:#555}dl.kv{margin:0 0 0 .2em}dl.kv dt{font-weight:600;float:left;clear:left;margin-right:.5em}
dl.kv dd{margin:0 0 .15em 1em}dl.kv dd>dl,dl.kv dd>ol{clear:left}pre{margin:0;font-size:12px;white-space:pre-wrap}
ol.kv{margin:0;padding-left:1.5em}
)";

void append_escaped(std::string& out, const std::string& text) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

// Any JSON value as nested lists: objects -> <dl>, arrays -> <ol>, strings
// with line breaks -> <pre>, other scalars as text. Every key is shown, so
// keys added to the environment later appear without a change here.
void append_value(std::string& out, const json& v) {
  if (v.is_object()) {
    if (v.empty()) {
      out += "<i>(empty)</i>";
      return;
    }
    out += "<dl class=\"kv\">";
    for (const auto& [key, value] : v.items()) {
      out += "<dt>" + html_escape(key) + "</dt><dd>";
      append_value(out, value);
      out += "</dd>";
    }
    out += "</dl>";
  } else if (v.is_array()) {
    if (v.empty()) {
      out += "<i>(none)</i>";
      return;
    }
    out += "<ol class=\"kv\">";
    for (const auto& item : v) {
      out += "<li>";
      append_value(out, item);
      out += "</li>";
    }
    out += "</ol>";
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.find('\n') != std::string::npos) out += "<pre>" + html_escape(s) + "</pre>";
    else if (s.empty()) out += "<i>(empty)</i>";
    else out += html_escape(s);
  } else if (v.is_null()) {
    out += "<i>null</i>";
  } else {
    out += html_escape(json_text(v));
  }
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         // Nothing may be fetched: the page is opened from disk, offline.
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "img-src data:\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

std::string render_note_html(const std::string& note) {
  if (note.empty()) return "";
  return "<p class=\"note\" id=\"render-note\">Charts not rendered to SVG/PNG: " + html_escape(note) +
         ". The Vega-Lite specs are in charts/*.vl.json (render them with tools/render_charts.py, or open one "
         "in the Vega editor).</p>\n";
}

std::string charts_html(const std::vector<PageChart>& charts) {
  std::string out = "<div class=\"charts\">\n";
  for (const auto& c : charts) {
    const std::string name = html_escape(c.name);
    out += "<figure class=\"chart\" id=\"chart-" + name + "\" data-chart=\"" + name + "\">\n";
    if (c.svg.empty()) {
      out += "<p class=\"not-rendered\">" + name + ": not rendered (see the note above)</p>\n";
    } else {
      // The SVG as rendered, without an XML declaration (not allowed inline).
      std::string svg = c.svg;
      if (svg.rfind("<?xml", 0) == 0)
        if (auto end = svg.find("?>"); end != std::string::npos) svg.erase(0, end + 2);
      out += svg + "\n";
    }
    out += "<figcaption>" + name + ": <a href=\"charts/" + name + ".vl.json\">Vega-Lite spec</a>";
    if (!c.svg.empty())
      out += " · <a href=\"charts/" + name + ".svg\">SVG</a> · <a href=\"charts/" + name + ".png\">PNG</a>";
    out += "</figcaption>\n</figure>\n";
  }
  return out + "</div>\n";
}

std::string links_html(const PageLinks& links) {
  std::string items;
  if (links.report_json)
    items += "<li><a href=\"report.json\">report.json</a> · <a href=\"steps.csv\">steps.csv</a> · "
             "<a href=\"table.md\">table.md</a></li>";
  for (const auto& [text, href] : links.others)
    items += "<li><a href=\"" + html_escape(href) + "\">" + html_escape(text) + "</a></li>";
  return items.empty() ? "" : "<ul>" + items + "</ul>\n";
}

std::string table_html(const ResultTable& t, const char* id = "results") {
  std::string out = std::string("<div class=\"table-wrap\"><table id=\"") + id + "\">\n";
  for (size_t i = 0; i < t.rows.size(); ++i) {
    out += "<tr>";
    for (size_t c = 0; c < t.rows[i].size(); ++c) {
      const bool right = c < t.right.size() && t.right[c];
      if (i == 0) out += "<th>" + html_escape(t.rows[i][c]) + "</th>";
      else out += std::string(right ? "<td class=\"num\">" : "<td>") + html_escape(t.rows[i][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  std::string notes = t.notes;
  while (!notes.empty() && notes.back() == '\n') notes.pop_back();
  // The notes are plain text lines: a run of lines that begin with "- " (the
  // footnotes, the "Not run here" list) is a list, any other line a paragraph.
  bool in_list = false;
  size_t start = 0;
  while (start <= notes.size()) {
    size_t end = notes.find('\n', start);
    if (end == std::string::npos) end = notes.size();
    const std::string line = notes.substr(start, end - start);
    const bool item = line.rfind("- ", 0) == 0;
    if (in_list && !item) out += "</ul>\n";
    if (item && !in_list) out += "<ul class=\"notes\">\n";
    in_list = item;
    if (item) out += "<li>" + html_escape(line.substr(2)) + "</li>\n";
    else if (!line.empty()) out += "<p class=\"notes\">" + html_escape(line) + "</p>\n";
    start = end + 1;
  }
  if (in_list) out += "</ul>\n";
  return out;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

std::string report_page_html(const Report& report, const std::vector<PageChart>& charts,
                             const std::string& render_note, const PageLinks& links, const std::string& baseline) {
  const std::string title = "ftbench: " + report_subtitle(report);
  std::string out = page_head(title);
  out += "<h1>ftbench report: " + html_escape(report_machine(report)) + "</h1>\n";
  out += "<p class=\"subtitle\">preset " + html_escape(report_preset(report)) + " · " +
         html_escape(report_date(report)) + "</p>\n";
  out += render_note_html(render_note) + links_html(links);
  out += "<h2>Results</h2>\n" + table_html(speedup_table(report, baseline));
  if (const auto rungs = ladder_table(report, baseline)) out += "<h2>Ladder</h2>\n" + table_html(*rungs, "ladder");
  if (const auto phases = phase_table(report)) out += "<h2>Where the time goes</h2>\n" + table_html(*phases, "phases");
  if (const auto memory = memory_table(report)) out += "<h2>Memory per rank</h2>\n" + table_html(*memory, "memory");
  if (const auto profiles = profile_table(report, baseline))
    out += "<h2>Operator profiles</h2>\n" + table_html(*profiles, "profiles");
  out += "<h2>Charts</h2>\n" + charts_html(charts);
  out += "<h2>Environment</h2>\n<div id=\"environment\">";
  append_value(out, report.environment.facts());
  out += "</div>\n<h2>Config</h2>\n<details><summary>the resolved config</summary>\n";
  append_value(out, report.config);
  out += "</details>\n</body>\n</html>\n";
  return out;
}

std::string comparison_page_html(const std::vector<std::pair<std::string, const Report*>>& labelled,
                                 const std::vector<PageChart>& charts, const std::string& render_note,
                                 const PageLinks& links) {
  std::string out = page_head("ftbench: " + std::to_string(labelled.size()) + " reports compared");
  out += "<h1>ftbench: " + std::to_string(labelled.size()) + " reports compared</h1>\n<ul>\n";
  for (const auto& [label, report] : labelled)
    out += "<li><b>" + html_escape(label) + "</b>: " + html_escape(report_subtitle(*report)) + "</li>\n";
  out += "</ul>\n" + render_note_html(render_note) + links_html(links);
  out += "<h2>Charts</h2>\n" + charts_html(charts) + "</body>\n</html>\n";
  return out;
}

}  // namespace ftb
