// Facts fixed when ftbench was built (core/measure/build_info.cpp.in, written
// by cmake/build_info.cmake at every build).
#pragma once

namespace ftb {
const char* build_git_commit();  // short hash, or "unknown" outside a git checkout
// "clean", "dirty" (tracked files differed from the commit) or "unknown".
const char* build_git_tree();
const char* build_type();        // CMAKE_BUILD_TYPE
}  // namespace ftb
