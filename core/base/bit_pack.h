// A bit per item, compact in JSON (issue 47: per-example correctness): the
// bits packed eight to a byte, first item in the lowest bit, then base64
// (RFC 4648, with padding). The count travels beside it: the last byte's
// spare bits are zero.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ftb {

std::string pack_bits_base64(const std::vector<bool>& bits);

// The inverse; InputError naming `what` where the text is not base64, or
// does not hold exactly `count` bits (spare bits set, wrong length).
std::vector<bool> unpack_bits_base64(const std::string& text, std::size_t count, const std::string& what);

}  // namespace ftb
