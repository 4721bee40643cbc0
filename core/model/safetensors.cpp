#include "core/model/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "core/base/files.h"
#include "core/base/errors.h"
#include "core/base/limits.h"

namespace ftb {
namespace {

// Our dtype names and LibTorch's types; sizes live in safetensors_layout.cpp.
struct DtypeInfo {
  const char* name;
  torch::ScalarType type;
};
constexpr DtypeInfo kDtypes[] = {
    {"F64", torch::kFloat64}, {"F32", torch::kFloat32}, {"F16", torch::kFloat16},
    {"BF16", torch::kBFloat16}, {"I64", torch::kInt64}, {"I32", torch::kInt32},
    {"I16", torch::kInt16},   {"I8", torch::kInt8},     {"U8", torch::kUInt8},
    {"BOOL", torch::kBool},
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
  safetensors_header_length(first8, size, path);
  in.seekg(0);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) input_error(path, "read error");
  return parse(std::move(bytes), path);
}

SafetensorsFile SafetensorsFile::parse(std::string bytes, const std::string& where) {
  SafetensorsLayout layout = parse_safetensors_layout(bytes, where);
  SafetensorsFile f;
  f.where_ = where;
  f.data_start_ = layout.data_start;
  f.entries_ = std::move(layout.entries);
  f.metadata_ = std::move(layout.metadata);
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
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * safetensors_dtype_bytes(dt->name);
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
