// glibc malloc's thresholds for a run (core/base/allocator.h).
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "core/base/allocator.h"
#include "core/base/errors.h"

using ftb::MallocMode;

TEST_CASE("allocator: the tuned GLIBC_TUNABLES keeps other tunables and replaces malloc thresholds") {
  const std::string tuned = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824";
  CHECK(ftb::tuned_glibc_tunables("") == tuned);
  CHECK(ftb::tuned_glibc_tunables("glibc.pthread.rseq=0") == "glibc.pthread.rseq=0:" + tuned);
  CHECK(ftb::tuned_glibc_tunables("glibc.malloc.mmap_threshold=4096:glibc.malloc.arena_max=2") ==
        "glibc.malloc.arena_max=2:" + tuned);
}

TEST_CASE("allocator: mode names parse once, anything else names the flag") {
  CHECK(ftb::parse_choice<MallocMode>("tuned", "allocator") == MallocMode::tuned);
  CHECK(ftb::parse_choice<MallocMode>("system", "allocator") == MallocMode::system);
  CHECK(ftb::to_string(MallocMode::tuned) == "tuned");
  try {
    ftb::parse_choice<MallocMode>("jemalloc", "allocator");
    FAIL("accepted an unknown allocator");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).find("allocator") != std::string::npos);
    CHECK(std::string(e.what()).find("jemalloc") != std::string::npos);
  }
}

TEST_CASE("allocator: system reports what the environment sets, tuned exports its thresholds for children") {
  const char* saved = std::getenv("GLIBC_TUNABLES");
  const std::string restore = saved ? saved : "";
  setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536", 1);
  const auto system = ftb::apply_malloc_mode(MallocMode::system);
  CHECK(system["malloc"] == "system");
#if defined(__GLIBC__)
  CHECK(system["mmap_threshold"] == 65536);
  CHECK(system["trim_threshold"].is_null());  // glibc's moving default
  const auto tuned = ftb::apply_malloc_mode(MallocMode::tuned);
#if defined(FTB_SANITIZER_MALLOC)
  // tools/asan.sh's build: the sanitizer's allocator, not glibc's; said, not pretended.
  CHECK(tuned["mmap_threshold"].is_null());
  CHECK(tuned["how"].get<std::string>().find("AddressSanitizer") != std::string::npos);
#else
  CHECK(tuned["mmap_threshold"] == ftb::kTunedMmapThreshold);
  CHECK(tuned["trim_threshold"] == ftb::kTunedTrimThreshold);
#endif
  // A child process (the Python peer, a rank) inherits the same rule.
  CHECK(std::string(std::getenv("GLIBC_TUNABLES")) == ftb::tuned_glibc_tunables(""));
  CHECK(tuned["glibc_tunables"] == ftb::tuned_glibc_tunables(""));
#endif
  if (saved) setenv("GLIBC_TUNABLES", restore.c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
}
