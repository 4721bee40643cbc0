// Running a helper program (the chart renderer, the Python peer) with its
// output captured, under a time limit. POSIX, no LibTorch.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ftb {

struct Finished {
  bool started = false, timed_out = false;
  int status = 0;  // waitpid's
  std::string out, err, spawn_error;
};

// argv[0] (a path, no PATH search) ... with stdout and stderr captured, in its
// own process group (killed as a whole on timeout). posix_spawn, not fork:
// the caller holds LibTorch's threads. `pid_seen`, when given, is told the
// child's pid once it runs, and 0 once its output has ended, before it is
// reaped (so a caller acting on the pid meanwhile never meets a reused one).
Finished run_captured(const std::vector<std::string>& argv, double timeout_s,
                      const std::function<void(int pid)>& pid_seen = nullptr);

// The last non-empty line of `text` ("" for none): a helper's one-line reason.
std::string last_line(const std::string& text);

}  // namespace ftb
