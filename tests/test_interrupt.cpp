// The interrupt flag (core/base/interrupt.h): the handler records, the check
// throws, the scope restores the previous handlers, and a second signal ends
// the process at once.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "core/base/interrupt.h"

namespace {

using Handler = void (*)(int);

Handler current_handler(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

}  // namespace

TEST_CASE("interrupt: a signal is recorded, the check throws it, the scope restores the handlers") {
  const Handler before = current_handler(SIGINT);
  {
    ftb::InterruptScope scope;
    CHECK((current_handler(SIGINT) != before));
    CHECK(ftb::interrupt_signal() == 0);
    CHECK_NOTHROW(ftb::throw_if_interrupted());
    raise(SIGINT);  // delivered before raise returns (this thread, not blocked)
    CHECK(ftb::interrupt_signal() == SIGINT);
    try {
      ftb::throw_if_interrupted();
      FAIL("no Interrupted thrown");
    } catch (const ftb::Interrupted& e) {
      CHECK(e.signal() == SIGINT);
      CHECK(e.exit_code() == 130);
      CHECK(std::string(e.what()) == "interrupted by SIGINT");
    }
    ftb::record_interrupt(SIGTERM);  // the first signal wins
    CHECK(ftb::interrupt_signal() == SIGINT);
  }
  CHECK((current_handler(SIGINT) == before));
  CHECK(ftb::interrupt_signal() == 0);
}

TEST_CASE("interrupt: a disabled scope installs nothing") {
  const Handler before = current_handler(SIGTERM);
  ftb::InterruptScope scope(/*enabled=*/false);
  CHECK((current_handler(SIGTERM) == before));
}

TEST_CASE("interrupt: the second SIGTERM ends the process at once, by the signal") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ftb::InterruptScope scope;
    raise(SIGTERM);  // recorded
    if (ftb::interrupt_signal() != SIGTERM) _exit(3);
    raise(SIGTERM);  // not waited for
    _exit(4);        // not reached
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}
