// A CUDA-graph capture that cannot outlive its own failure. Between
// capture_begin and capture_end the stream is in capture mode and the caching
// allocator routes its allocations to the graph's pool; an exception in the
// captured body that skipped capture_end would leave both so, and every later
// row of the process would fail with "operation not permitted when stream is
// capturing". guarded_capture runs begin, body, end and, if body or end
// throws, `abandon` (which must not throw: end the capture, discard the
// partial graph, restore the pool's routing) before the exception goes on,
// so only the row that captured fails, with its reason.
// No LibTorch here: the control flow is tested on any machine
// (tests/test_cuda_graph.cpp); the CUDA abandon is in scenarios/cuda_graph.cpp.
#pragma once

#include <utility>

namespace ftb {

template <class Begin, class Body, class End, class Abandon>
void guarded_capture(Begin&& begin, Body&& body, End&& end, Abandon&& abandon) {
  std::forward<Begin>(begin)();  // a begin that throws captured nothing: nothing to abandon
  try {
    std::forward<Body>(body)();
    std::forward<End>(end)();
  } catch (...) {
    std::forward<Abandon>(abandon)();
    throw;
  }
}

}  // namespace ftb
