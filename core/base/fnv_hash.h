// FNV-1a 64: the one content hash of ftbench (config and report identities in
// the history, the data a run trained on). Not cryptographic: it names
// content, it does not defend against forgery.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ftb {

inline constexpr uint64_t kFnvOffset = 14695981039346656037ull;

// Folds `size` bytes into `h` (start from kFnvOffset).
inline uint64_t fnv1a64(const void* data, std::size_t size, uint64_t h = kFnvOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

inline std::string hex64(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

inline std::string fnv1a64_hex(const std::string& bytes) { return hex64(fnv1a64(bytes.data(), bytes.size())); }

}  // namespace ftb
