#include "core/measure/nvtx_range.h"

#ifdef FTB_WITH_NVTX
// Header-only NVTX3: without an attached tool (nsys, ncu) every call returns
// at once; with one, the tool's injection library receives the ranges.
#include <nvtx3/nvToolsExt.h>
#endif

namespace ftb {

#ifdef FTB_WITH_NVTX
NvtxRange::NvtxRange(const char* name) { nvtxRangePushA(name); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }
bool nvtx_enabled() { return true; }
#else
NvtxRange::NvtxRange(const char*) {}
NvtxRange::~NvtxRange() {}
bool nvtx_enabled() { return false; }
#endif

}  // namespace ftb
