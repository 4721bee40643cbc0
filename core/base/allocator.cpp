#include "core/base/allocator.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/base/errors.h"

namespace ftb {
namespace {

constexpr const char* kMmapKey = "glibc.malloc.mmap_threshold";
constexpr const char* kTrimKey = "glibc.malloc.trim_threshold";

std::vector<std::string> split_colons(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) out.push_back(part);
  return out;
}

// The value of `key` in a GLIBC_TUNABLES string; null when absent.
nlohmann::json tunable(const std::string& tunables, const std::string& key) {
  for (const auto& part : split_colons(tunables))
    if (part.rfind(key + "=", 0) == 0) {
      try {
        return std::stol(part.substr(key.size() + 1));
      } catch (const std::exception&) {
        return part.substr(key.size() + 1);
      }
    }
  return nullptr;
}

}  // namespace

std::string tuned_glibc_tunables(const std::string& current) {
  std::string out;
  for (const auto& part : split_colons(current))
    if (part.rfind(std::string(kMmapKey) + "=", 0) != 0 && part.rfind(std::string(kTrimKey) + "=", 0) != 0)
      out += part + ":";
  return out + kMmapKey + "=" + std::to_string(kTunedMmapThreshold) + ":" + kTrimKey + "=" +
         std::to_string(kTunedTrimThreshold);
}

nlohmann::json apply_malloc_mode(MallocMode mode) {
  const char* env = std::getenv("GLIBC_TUNABLES");
  const std::string before = env ? env : "";
  nlohmann::json out = {{"malloc", to_string(mode)}};
#if defined(__GLIBC__)
#if defined(FTB_SANITIZER_MALLOC)
  if (mode == MallocMode::tuned) {
    // This process allocates through the sanitizer: nothing to tune here,
    // and the report says so; children (the peer, ranks) get the rule.
    const std::string exported = tuned_glibc_tunables(before);
    setenv("GLIBC_TUNABLES", exported.c_str(), 1);
    out["mmap_threshold"] = nullptr;
    out["trim_threshold"] = nullptr;
    out["glibc_tunables"] = exported;
    out["how"] = "not applied in this process: built with AddressSanitizer, whose allocator replaces glibc malloc "
                 "(mallopt has no effect); the thresholds exported in GLIBC_TUNABLES for child processes";
    return out;
  }
#endif
  if (mode == MallocMode::tuned) {
    // An explicit threshold also turns glibc's moving threshold off.
    if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kTunedMmapThreshold)) != 1 ||
        mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTunedTrimThreshold)) != 1)
      throw std::runtime_error("mallopt refused the tuned malloc thresholds (allocator=system runs without them)");
    const std::string exported = tuned_glibc_tunables(before);
    setenv("GLIBC_TUNABLES", exported.c_str(), 1);
    out["mmap_threshold"] = kTunedMmapThreshold;
    out["trim_threshold"] = kTunedTrimThreshold;
    out["glibc_tunables"] = exported;
    out["how"] = "mallopt at start; the same thresholds exported in GLIBC_TUNABLES, so the Python peer and the "
                 "ranks allocate under the same rule";
    return out;
  }
  out["mmap_threshold"] = tunable(before, kMmapKey);
  out["trim_threshold"] = tunable(before, kTrimKey);
  out["glibc_tunables"] = before.empty() ? nlohmann::json(nullptr) : nlohmann::json(before);
  out["how"] = "glibc's defaults (a moving mmap threshold) unless GLIBC_TUNABLES sets them";
#else
  out["mmap_threshold"] = nullptr;
  out["trim_threshold"] = nullptr;
  out["glibc_tunables"] = nullptr;
  out["how"] = "not glibc: the C library's own allocator, untouched";
#endif
  return out;
}

}  // namespace ftb
