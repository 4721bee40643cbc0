// How large an input ftbench accepts, in one place. Files come from the
// internet and from other machines; an input far beyond any real one (a
// 1 GB JSONL line, a safetensors header claiming 10 GB, an archive of
// millions of members) ends with a one-line error naming the file and the
// limit, within seconds and in bounded memory, instead of taking the machine
// down. Each limit is far above what the real inputs need (said beside it).
// tests/cli_checks.sh (huge_*) and tests/test_huge_inputs.cpp build such
// inputs on the fly and check the error.
#pragma once

#include <cstdint>
#include <string>

namespace ftb::limits {

// One line of a JSONL input (predict, tokenize) and one physical line or
// field of a CSV. A 512-token input_ids line is ~4 KB; the longest IMDB
// review is 14 KB.
inline constexpr std::uint64_t kMaxLineBytes = 16ull << 20;

// The JSON header of a safetensors file; the reference implementation's own
// cap (distilbert-base-uncased's header is 13 KB).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;

// Members of an IMDB archive, or review files of an aclImdb/ folder: the
// official archive holds about 100,000.
inline constexpr std::uint64_t kMaxArchiveMembers = 250'000;

// One review (archive member or file): the longest IMDB review is 14 KB.
inline constexpr std::uint64_t kMaxReviewBytes = 1ull << 20;

// Everything an archive expands to (the sizes its members declare, read
// before any of their data): the official archive expands to a few hundred MB.
inline constexpr std::uint64_t kMaxArchiveBytes = 2ull << 30;

// "16 MiB", "1 GiB", "250000": a limit as the error messages write it.
inline std::string bytes_text(std::uint64_t n) {
  if (n >= (1ull << 30) && n % (1ull << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= (1ull << 10) && n % (1ull << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

}  // namespace ftb::limits
