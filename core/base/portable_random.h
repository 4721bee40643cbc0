// Random draws that are identical with every C++ standard library: the
// engines (std::mt19937_64) are specified bit for bit by the standard, the
// distributions (std::uniform_int_distribution, std::shuffle) are not. The
// split, the synthetic corpus and the batch order go through these, so a seed
// means the same data on every machine and compiler.
#pragma once

#include <cstdint>
#include <random>
#include <utility>

namespace ftb {

// Uniform in [0, n) for n > 0, by rejection of the incomplete last block.
inline uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = rng(); while (x >= limit);
  return x % n;
}

// Uniform in [0, 1) at 53-bit resolution.
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// True with probability p (53-bit resolution).
inline bool chance(std::mt19937_64& rng, double p) { return uniform01(rng) < p; }

// Fisher-Yates, last position first, on any random-access container.
template <typename Vec>
void portable_shuffle(Vec& v, std::mt19937_64& rng) {
  using std::swap;
  for (std::size_t i = v.size(); i > 1; --i) swap(v[i - 1], v[uniform_below(rng, i)]);
}

// A well-mixed 64-bit hash (SplitMix64), for deriving per-item seeds.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace ftb
