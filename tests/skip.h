// A test case that cannot run on this machine (no CUDA device, no shared
// data, an old LibTorch) skips, and ctest lists it as skipped, not passed.
//
// ctest runs each doctest case in a process of its own (doctest_discover_tests)
// with FTB_SKIP_RETURN_CODE=77 in its environment and SKIP_RETURN_CODE 77 on
// its entry (tests/CMakeLists.txt): FTB_SKIP_CASE prints why and ends that
// process with 77. Run by hand, several cases to a process, it prints the
// same line and returns from the case, so the cases after it still run.
//
// It comes first in the case, before any check: a process that ends with 77
// after a failed check would read as a skip.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

namespace ftb_test {

// Under ctest: ends the process with the entry's skip code. Otherwise returns.
inline void end_process_if_ctest_skips(const std::string& why) {
  const char* code = std::getenv("FTB_SKIP_RETURN_CODE");
  if (code == nullptr || *code == '\0') return;
  std::cout << "skipped: " << why << std::endl;
  std::fflush(stdout);
  std::_Exit(std::atoi(code));  // no teardown: nothing of the case ran
}

}  // namespace ftb_test

// FTB_SKIP_CASE("no CUDA device visible" << ...): streamable, like MESSAGE.
#define FTB_SKIP_CASE(why)                                      \
  do {                                                          \
    std::ostringstream ftb_skip_why_;                           \
    ftb_skip_why_ << why;                                       \
    ftb_test::end_process_if_ctest_skips(ftb_skip_why_.str());  \
    MESSAGE("skipped: " << ftb_skip_why_.str());                \
    return;                                                     \
  } while (0)
