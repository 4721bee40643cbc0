// A static NVTX injection linked into ftb_tests (nvtx_injection.cpp): the
// NVTX3 loader finds its strong InitializeInjectionNvtx2_fnptr at the first
// NVTX call, as it finds nsys's library through NVTX_INJECTION64_PATH, and
// from then on every nvtxRangePushA / nvtxRangePop of the process lands here.
#pragma once

#include <string>
#include <vector>

namespace ftb_test {

struct NvtxLog {
  std::vector<std::string> pushed;  // the names, in order
  int popped = 0;
  bool attached = false;  // the loader called the injection (false in a build without NVTX)
};

// What the process's NVTX calls delivered so far.
NvtxLog nvtx_log();

}  // namespace ftb_test
