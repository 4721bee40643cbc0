// Facts fixed when ftbench was configured (see core/build_info.cpp.in).
#pragma once

namespace ftb {
const char* build_git_commit();  // short hash, or "unknown" outside a git checkout
const char* build_type();        // CMAKE_BUILD_TYPE
}  // namespace ftb
