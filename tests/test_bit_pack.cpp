// bit_pack.h: a bit per test example, packed and base64'd (issue 47).
#include "core/base/bit_pack.h"

#include "core/base/errors.h"

#include <doctest/doctest.h>

#include <random>

using namespace ftb;

TEST_CASE("pack_bits_base64: known bytes, and the round trip at every length to 40") {
  CHECK(pack_bits_base64({}) == "");
  CHECK(pack_bits_base64({true}) == "AQ==");                                          // 0x01
  CHECK(pack_bits_base64({false, false, false, false, false, false, false, true}) == "gA==");  // 0x80
  CHECK(pack_bits_base64(std::vector<bool>(24, true)) == "////");
  std::mt19937_64 rng(47);
  for (std::size_t n = 0; n <= 40; ++n) {
    std::vector<bool> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = (rng() & 1u) != 0;
    CHECK(unpack_bits_base64(pack_bits_base64(bits), n, "r.json") == bits);
  }
}

TEST_CASE("unpack_bits_base64: bad text, a wrong count and spare bits set name the file") {
  CHECK_THROWS_WITH_AS(unpack_bits_base64("AQ=", 1, "r.json"), doctest::Contains("r.json"), InputError);
  CHECK_THROWS_WITH_AS(unpack_bits_base64("A*==", 1, "r.json"), doctest::Contains("not base64"), InputError);
  CHECK_THROWS_WITH_AS(unpack_bits_base64("AQ==", 9, "r.json"), doctest::Contains("examples need 2"), InputError);
  CHECK_THROWS_WITH_AS(unpack_bits_base64("Aw==", 1, "r.json"), doctest::Contains("beyond 1"), InputError);
  CHECK(unpack_bits_base64("Aw==", 2, "r.json") == std::vector<bool>{true, true});
}
