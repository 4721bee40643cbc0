// Chart rendering: the Vega-Lite specs (charts/*.vl.json) become SVG and PNG
// through tools/render_charts.py (the vl-convert package), run once with the
// project's Python for every folder at hand (the engine's start-up is paid
// once), under a time limit. Rendering is optional: when the Python, the
// package or the script is missing, or the renderer fails or runs out of
// time, the specs stay and RenderOutcome says why, in one line; the caller
// says it once and carries on (the measurements matter more than the
// pictures).
#pragma once

#include <string>
#include <vector>

namespace ftb {

// Set at configure time (reports/views/render_paths.cpp.in): CMake's FTB_PYTHON,
// by default <source>/.venv/bin/python, and <source>/tools/render_charts.py.
const char* build_render_python();
const char* build_render_script();

struct Renderer {
  std::string python;  // an executable path (no PATH search)
  std::string script;  // render_charts.py
  double timeout_s = 300;
};

// $FTB_PYTHON when set (and non-empty), else the build's python; the build's script.
Renderer default_renderer();

struct RenderOutcome {
  bool rendered = false;  // every chart of every folder has its SVG and PNG
  std::string why_not;    // one line when not rendered
  std::vector<std::string> written;  // the files the renderer wrote (also when some chart failed)
};

// Runs `python script DIR...`: each DIR/charts/*.vl.json -> .svg + .png.
// Never throws for a renderer problem (that is the outcome's why_not).
RenderOutcome render_charts(const Renderer& renderer, const std::vector<std::string>& dirs);

}  // namespace ftb
