// An NVTX range (push on construction, pop on destruction) so that an Nsight
// Systems timeline shows the same phase names as the report. Real when the
// CUDA toolkit's header-only NVTX3 was found at configure time (FTB_WITH_NVTX,
// set on this file only); a no-op otherwise. No LibTorch here: the no-op
// build of this file is compiled by a test target of its own.
#pragma once

namespace ftb {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name);  // `name` must outlive the range (a literal)
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// Whether this build emits NVTX ranges (reported in the environment).
bool nvtx_enabled();

}  // namespace ftb
