// Interruption (Ctrl-C, SIGTERM) of a long run, without losing what was
// measured. The signal handler only records the signal (an atomic store,
// async-signal-safe); the training loop checks between steps, the sweep
// between rows, and the launcher while it waits on its ranks
// (scenarios/parallel/launcher.cpp records into the same flag). The check
// throws Interrupted, which unwinds like any error: the sweep marks the row
// in progress `failed` with reason "interrupted", writes the report of every
// finished row, and the command exits 128 + signal (130 for SIGINT, 143 for
// SIGTERM). Nothing calls exit() from a handler.
//
// A second SIGINT/SIGTERM after the first is not waited for: the handler
// restores the default action and re-raises, so the process dies at once
// (the report written after the last finished row stays, being atomic).
//
// One InterruptScope at a time per process (handlers are process-wide).
#pragma once

#include <signal.h>
#include <stdexcept>
#include <string>

namespace ftb {

// Thrown by throw_if_interrupted(); signal() is SIGINT or SIGTERM.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return signal_; }
  int exit_code() const { return 128 + signal_; }

 private:
  int signal_;
};

// The reason a row interrupted by a signal carries in the report.
inline constexpr const char* kInterruptedReason = "interrupted";

// Installs the SIGINT/SIGTERM handlers for its lifetime (restoring the
// previous ones after); the flag is cleared at both ends. `enabled` false: does nothing
// (a rank started by a launcher keeps the default action: its launcher stops
// it, and a rank finishing its step alone would wait in a collective).
class InterruptScope {
 public:
  explicit InterruptScope(bool enabled = true);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  bool enabled_;
  struct sigaction old_int_ {}, old_term_ {};
};

// Async-signal-safe: records `sig` as this process's interruption (the first
// one wins). For other handlers of SIGINT/SIGTERM (the launcher's) so that
// one flag says whether the run was interrupted.
void record_interrupt(int sig) noexcept;
// 0, or the signal that interrupted the run.
int interrupt_signal() noexcept;
// Throws Interrupted when a signal was recorded.
void throw_if_interrupted();
// "SIGINT", "SIGTERM" or "signal N".
std::string interrupt_signal_name(int sig);

}  // namespace ftb
