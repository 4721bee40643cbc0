#include "reports/views/render.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "core/base/subprocess.h"

namespace ftb {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

Renderer default_renderer() {
  Renderer r;
  const char* env = std::getenv("FTB_PYTHON");
  r.python = env && *env ? env : build_render_python();
  r.script = build_render_script();
  return r;
}

RenderOutcome render_charts(const Renderer& renderer, const std::vector<std::string>& dirs) {
  RenderOutcome o;
  const std::string fix = " (set FTB_PYTHON to a python with vl-convert-python, or run tools/setup.sh)";
  if (::access(renderer.python.c_str(), X_OK) != 0) {
    o.why_not = "no python at " + renderer.python + ": " + std::strerror(errno) + fix;
    return o;
  }
  if (::access(renderer.script.c_str(), R_OK) != 0) {
    o.why_not = "no renderer script at " + renderer.script + ": " + std::strerror(errno);
    return o;
  }
  std::vector<std::string> argv = {renderer.python, renderer.script};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  const Finished f = run_captured(argv, renderer.timeout_s);
  o.written = lines_of(f.out);
  if (!f.started) {
    o.why_not = "cannot start " + renderer.python + ": " + f.spawn_error + fix;
  } else if (f.timed_out) {
    o.why_not = "the renderer ran out of time (" + std::to_string(std::lround(renderer.timeout_s)) + " s) and was stopped";
  } else if (WIFSIGNALED(f.status)) {
    o.why_not = "the renderer was killed by signal " + std::to_string(WTERMSIG(f.status));
  } else if (WEXITSTATUS(f.status) != 0) {
    const std::string why = last_line(f.err);
    o.why_not = why.empty() ? "the renderer exited with status " + std::to_string(WEXITSTATUS(f.status)) : why;
  } else {
    o.rendered = true;
  }
  return o;
}

}  // namespace ftb
