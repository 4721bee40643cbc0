// glibc malloc's thresholds, fixed for the whole run (config key `malloc`).
//
// By default glibc moves its mmap threshold up as large blocks are freed, and
// returns memory to the system whenever the top of the heap has 128 KiB free:
// how a process's tensors are allocated (page faults per step, mmap/munmap per
// tensor) then depends on its own history, and processes of one command land
// apart (what fixed thresholds change: docs/statistics.md, "What the set
// showed"). "tuned" fixes both (mmap above 32 MiB only, trim above 1 GiB)
// with mallopt and exports the same setting in
// GLIBC_TUNABLES, so every child process (the Python peer, the ranks of a
// distributed row) allocates under the same rule; "system" leaves glibc's
// defaults (or whatever GLIBC_TUNABLES the caller set). POSIX/glibc, no LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include "core/base/choices.h"

#include <string>

// A build under AddressSanitizer (tools/asan.sh): its allocator replaces
// glibc's, and mallopt has no effect there (it returns 0).
#if defined(__SANITIZE_ADDRESS__)
#define FTB_SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FTB_SANITIZER_MALLOC 1
#endif
#endif

namespace ftb {

enum class MallocMode { tuned, system };
FTB_CHOICES(MallocMode, {MallocMode::tuned, "tuned"}, {MallocMode::system, "system"});

inline constexpr long kTunedMmapThreshold = 32L << 20;   // bytes
inline constexpr long kTunedTrimThreshold = 1L << 30;    // bytes

// Applies `mode` to this process (and its future children) and says what
// holds: {"malloc", "mmap_threshold", "trim_threshold" (bytes, or null =
// glibc's moving default), "glibc_tunables" (as exported), "how"}. Called
// once, before the workload is built.
nlohmann::json apply_malloc_mode(MallocMode mode);

// The GLIBC_TUNABLES value that adds the tuned thresholds to `current`
// (other tunables kept; a malloc threshold already there is replaced).
std::string tuned_glibc_tunables(const std::string& current);

}  // namespace ftb
