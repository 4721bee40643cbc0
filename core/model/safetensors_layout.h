// The safetensors layout without LibTorch: the 8-byte little-endian header
// length, the JSON header, and every tensor's dtype, shape and byte range
// checked against the file. SafetensorsFile (safetensors.h) reads tensors on
// top of it; kept torch-free so the fuzz target (tests/fuzz) builds without
// LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ftb {

struct SafetensorsEntry {
  std::string dtype;           // "F32", "F16", "BF16", "F64", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // byte range inside the data section
};

struct SafetensorsLayout {
  std::size_t data_start = 0;  // 8 + header length: where the data section begins
  std::map<std::string, SafetensorsEntry> entries;
  std::map<std::string, std::string> metadata;
};

// Bytes per element of a safetensors dtype name, 0 for one we do not read.
uint64_t safetensors_dtype_bytes(const std::string& dtype);

// The header length in the first 8 bytes (of a file of `file_size` bytes,
// at least 8), checked against the limit (core/base/limits.h) and the file
// size: a header claiming 10 GB is refused before anything is allocated.
uint64_t safetensors_header_length(const char* first8, uint64_t file_size, const std::string& where);

// Validates `bytes` (the whole file): header length in bounds, header a JSON
// object, every tensor with a known dtype, a shape whose size matches its byte
// range, ranges inside the file and not overlapping. InputError naming `where`.
SafetensorsLayout parse_safetensors_layout(std::string_view bytes, const std::string& where);

}  // namespace ftb
