#include "core/base/bit_pack.h"

#include "core/base/errors.h"

#include <cstdint>

namespace ftb {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

std::vector<uint8_t> decode(const std::string& text, const std::string& what) {
  if (text.size() % 4 != 0) throw InputError(what + ": per-example bits are not base64 (length " +
                                             std::to_string(text.size()) + ")");
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char ch = text[i + k];
      const bool last = i + 4 == text.size();
      if (ch == '=' && last && k >= 2) { v[k] = 0; ++pad; continue; }
      if (pad > 0 || (v[k] = sextet(ch)) < 0)
        throw InputError(what + ": per-example bits are not base64 (at character " + std::to_string(i + k) + ")");
    }
    const uint32_t w = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<uint8_t>(w >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(w >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(w));
  }
  return out;
}

}  // namespace

std::string pack_bits_base64(const std::vector<bool>& bits) {
  std::vector<uint8_t> bytes((bits.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) bytes[i / 8] = static_cast<uint8_t>(bytes[i / 8] | (1u << (i % 8)));
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    const uint32_t w = (uint32_t(bytes[i]) << 16) | (left > 1 ? uint32_t(bytes[i + 1]) << 8 : 0u) |
                       (left > 2 ? uint32_t(bytes[i + 2]) : 0u);
    out += kAlphabet[(w >> 18) & 63];
    out += kAlphabet[(w >> 12) & 63];
    out += left > 1 ? kAlphabet[(w >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[w & 63] : '=';
  }
  return out;
}

std::vector<bool> unpack_bits_base64(const std::string& text, std::size_t count, const std::string& what) {
  const std::vector<uint8_t> bytes = decode(text, what);
  if (bytes.size() != (count + 7) / 8)
    throw InputError(what + ": per-example bits hold " + std::to_string(bytes.size()) + " bytes, " +
                     std::to_string(count) + " examples need " + std::to_string((count + 7) / 8));
  std::vector<bool> bits(count);
  for (std::size_t i = 0; i < count; ++i) bits[i] = (bytes[i / 8] >> (i % 8)) & 1u;
  for (std::size_t i = count; i < bytes.size() * 8; ++i)
    if ((bytes[i / 8] >> (i % 8)) & 1u)
      throw InputError(what + ": per-example bits set beyond " + std::to_string(count) + " examples");
  return bits;
}

}  // namespace ftb
