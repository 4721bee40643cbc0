#include "core/model/safetensors_layout.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <utility>

#include "core/base/errors.h"
#include "core/base/limits.h"

namespace ftb {
namespace {

uint64_t read_u64_le(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// The header's "__metadata__": an object of strings only.
void read_metadata(const nlohmann::json& value, const std::string& where, std::map<std::string, std::string>& out) {
  if (!value.is_object()) input_error(where, "__metadata__ is not an object");
  for (const auto& [k, v] : value.items()) {
    if (!v.is_string()) input_error(where, "__metadata__ value for \"" + k + "\" is not a string");
    out[k] = v.get<std::string>();
  }
}

// One tensor's header entry, checked on its own and against the data section
// (`data_size` bytes); overlaps between tensors are the caller's to check.
SafetensorsEntry read_entry(const std::string& name, const nlohmann::json& value, uint64_t data_size,
                            const std::string& where) {
  const std::string ctx = "tensor \"" + name + "\": ";
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") || !value.contains("data_offsets"))
    input_error(where, ctx + "needs dtype, shape and data_offsets");
  const auto& jd = value.at("dtype");
  const auto& js = value.at("shape");
  const auto& jo = value.at("data_offsets");
  if (!jd.is_string()) input_error(where, ctx + "dtype is not a string");
  const std::string dtype = jd.get<std::string>();
  const uint64_t dtype_bytes = safetensors_dtype_bytes(dtype);
  if (dtype_bytes == 0) input_error(where, ctx + "unsupported dtype " + dtype);
  if (!js.is_array()) input_error(where, ctx + "shape is not an array");
  if (!jo.is_array() || jo.size() != 2 || !jo[0].is_number_unsigned() || !jo[1].is_number_unsigned())
    input_error(where, ctx + "data_offsets must be two non-negative integers");
  SafetensorsEntry e;
  e.dtype = dtype;
  uint64_t numel = 1;
  for (const auto& d : js) {
    if (!d.is_number_unsigned()) input_error(where, ctx + "shape entries must be non-negative integers");
    const uint64_t v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        (v != 0 && numel > std::numeric_limits<uint64_t>::max() / v))
      input_error(where, ctx + "shape overflows");
    numel *= v;
    e.shape.push_back(static_cast<int64_t>(v));
  }
  e.begin = jo[0].get<uint64_t>();
  e.end = jo[1].get<uint64_t>();
  if (e.begin > e.end) input_error(where, ctx + "data_offsets begin > end");
  if (e.end > data_size)
    input_error(where, ctx + "data range [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                           ") lies outside the file (truncated?)");
  if (numel > std::numeric_limits<uint64_t>::max() / dtype_bytes || numel * dtype_bytes != e.end - e.begin)
    input_error(where, ctx + "shape x dtype size does not equal its byte range");
  return e;
}

}  // namespace

uint64_t safetensors_dtype_bytes(const std::string& dtype) {
  static const std::pair<const char*, uint64_t> kSizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1},
  };
  for (const auto& [name, bytes] : kSizes)
    if (dtype == name) return bytes;
  return 0;
}

uint64_t safetensors_header_length(const char* first8, uint64_t file_size, const std::string& where) {
  const uint64_t n = read_u64_le(first8);
  if (n == 0 || n > limits::kMaxSafetensorsHeaderBytes)
    input_error(where, "header length " + std::to_string(n) + " is out of bounds (1 byte to the " +
                           limits::bytes_text(limits::kMaxSafetensorsHeaderBytes) + " limit)");
  if (n > file_size - 8)
    input_error(where, "truncated: header length " + std::to_string(n) + " exceeds the file size " +
                           std::to_string(file_size));
  return n;
}

SafetensorsLayout parse_safetensors_layout(std::string_view bytes, const std::string& where) {
  SafetensorsLayout f;
  if (bytes.size() < 8) input_error(where, "truncated: shorter than the 8-byte header length");
  const uint64_t n = safetensors_header_length(bytes.data(), bytes.size(), where);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  } catch (const nlohmann::json::exception&) {
    input_error(where, "header is not valid JSON");
  }
  if (!header.is_object()) input_error(where, "header is not a JSON object");
  f.data_start = 8 + n;
  const uint64_t data_size = bytes.size() - f.data_start;

  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      read_metadata(value, where, f.metadata);
      continue;
    }
    SafetensorsEntry e = read_entry(name, value, data_size, where);
    ranges.emplace_back(e.begin, e.end);
    f.entries.emplace(name, std::move(e));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) input_error(where, "tensor byte ranges overlap");
  return f;
}

}  // namespace ftb
