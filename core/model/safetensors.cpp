#include "core/model/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <unistd.h>

#include "core/text/files.h"
#include "core/text/errors.h"
#include "core/text/limits.h"

namespace ftb {
namespace {


struct DtypeInfo {
  const char* name;
  torch::ScalarType type;
  uint64_t bytes;
};
constexpr DtypeInfo kDtypes[] = {
    {"F64", torch::kFloat64, 8}, {"F32", torch::kFloat32, 4}, {"F16", torch::kFloat16, 2},
    {"BF16", torch::kBFloat16, 2}, {"I64", torch::kInt64, 8}, {"I32", torch::kInt32, 4},
    {"I16", torch::kInt16, 2},   {"I8", torch::kInt8, 1},     {"U8", torch::kUInt8, 1},
    {"BOOL", torch::kBool, 1},
};

const DtypeInfo* find_dtype(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}
const DtypeInfo* find_dtype(torch::ScalarType t) {
  for (const auto& d : kDtypes)
    if (t == d.type) return &d;
  return nullptr;
}

uint64_t read_u64_le(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// The header length in the first 8 bytes, checked against the limit and the
// file size: a length of 10 GB is refused before anything is allocated.
uint64_t checked_header_length(const char* first8, uint64_t file_size, const std::string& where) {
  const uint64_t n = read_u64_le(first8);
  if (n == 0 || n > limits::kMaxSafetensorsHeaderBytes)
    input_error(where, "header length " + std::to_string(n) + " is out of bounds (1 byte to the " +
                           limits::bytes_text(limits::kMaxSafetensorsHeaderBytes) + " limit)");
  if (n > file_size - 8)
    input_error(where, "truncated: header length " + std::to_string(n) + " exceeds the file size " +
                           std::to_string(file_size));
  return n;
}

}  // namespace

SafetensorsFile SafetensorsFile::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, "cannot open safetensors file");
  // The header length first: a file claiming a huge header fails before its
  // bytes are read into memory.
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(std::max<std::streamoff>(0, in.tellg()));
  in.seekg(0);
  char first8[8];
  if (size < 8 || !in.read(first8, 8)) input_error(path, "truncated: shorter than the 8-byte header length");
  checked_header_length(first8, size, path);
  in.seekg(0);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) input_error(path, "read error");
  return parse(std::move(bytes), path);
}

SafetensorsFile SafetensorsFile::parse(std::string bytes, const std::string& where) {
  SafetensorsFile f;
  f.where_ = where;
  if (bytes.size() < 8) input_error(where, "truncated: shorter than the 8-byte header length");
  const uint64_t n = checked_header_length(bytes.data(), bytes.size(), where);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  } catch (const nlohmann::json::exception&) {
    input_error(where, "header is not valid JSON");
  }
  if (!header.is_object()) input_error(where, "header is not a JSON object");
  f.data_start_ = 8 + n;
  const uint64_t data_size = bytes.size() - f.data_start_;

  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) input_error(where, "__metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) input_error(where, "__metadata__ value for \"" + k + "\" is not a string");
        f.metadata_[k] = v.get<std::string>();
      }
      continue;
    }
    const std::string ctx = "tensor \"" + name + "\": ";
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets"))
      input_error(where, ctx + "needs dtype, shape and data_offsets");
    const auto& jd = value.at("dtype");
    const auto& js = value.at("shape");
    const auto& jo = value.at("data_offsets");
    if (!jd.is_string()) input_error(where, ctx + "dtype is not a string");
    const DtypeInfo* dt = find_dtype(jd.get<std::string>());
    if (!dt) input_error(where, ctx + "unsupported dtype " + jd.get<std::string>());
    if (!js.is_array()) input_error(where, ctx + "shape is not an array");
    if (!jo.is_array() || jo.size() != 2 || !jo[0].is_number_unsigned() || !jo[1].is_number_unsigned())
      input_error(where, ctx + "data_offsets must be two non-negative integers");
    SafetensorsEntry e;
    e.dtype = dt->name;
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
    if (numel > std::numeric_limits<uint64_t>::max() / dt->bytes || numel * dt->bytes != e.end - e.begin)
      input_error(where, ctx + "shape x dtype size does not equal its byte range");
    ranges.emplace_back(e.begin, e.end);
    f.entries_.emplace(name, std::move(e));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) input_error(where, "tensor byte ranges overlap");
  f.bytes_ = std::move(bytes);
  return f;
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) input_error(where_, "no tensor named \"" + name + "\"");
  const auto& e = it->second;
  auto t = torch::empty(e.shape, torch::TensorOptions().dtype(find_dtype(e.dtype)->type));
  // memcpy rather than from_blob: the data section need not be aligned.
  if (e.end > e.begin) std::memcpy(t.data_ptr(), bytes_.data() + data_start_ + e.begin, e.end - e.begin);
  return t;
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<std::pair<std::string, torch::Tensor>> sorted;
  for (const auto& [name, t] : tensors) sorted.emplace_back(name, t.detach().to(torch::kCPU).contiguous());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : sorted) {
    const DtypeInfo* dt = find_dtype(t.scalar_type());
    if (!dt) throw std::runtime_error("write_safetensors: unsupported dtype for " + name);
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * dt->bytes;
    header[name] = {{"dtype", dt->name}, {"shape", t.sizes().vec()}, {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // align the data section to 8 bytes
  write_file_atomic(path, [&](std::ostream& out) {
    char len[8];
    const uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    out.write(len, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto& [name, t] : sorted)
      out.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  });
}

}  // namespace ftb
