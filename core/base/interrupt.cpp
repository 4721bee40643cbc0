#include "core/base/interrupt.h"

#include <atomic>

namespace ftb {
namespace {

// Lock-free, so reading and writing it from a handler (on any thread) and
// from the loop is well-defined.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the interrupt flag must be lock-free");

extern "C" void on_interrupt(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    // The second one: die now, with the signal's own status. The report of
    // the finished rows is on disk already (written after every row).
    // sigaction and raise are async-signal-safe; the signal stays blocked
    // until the handler returns, then the default action ends the process.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
  }
}

}  // namespace

Interrupted::Interrupted(int sig) : std::runtime_error("interrupted by " + interrupt_signal_name(sig)), signal_(sig) {}

void record_interrupt(int sig) noexcept {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
}

int interrupt_signal() noexcept { return g_signal.load(); }

void throw_if_interrupted() {
  if (const int sig = g_signal.load()) throw Interrupted(sig);
}

std::string interrupt_signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

InterruptScope::InterruptScope(bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // reads and writes in progress go on; the loop checks the flag
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

InterruptScope::~InterruptScope() {
  if (!enabled_) return;
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_signal = 0;  // the run that was interrupted has said so (its exit code)
}

}  // namespace ftb
