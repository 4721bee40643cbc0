// The safetensors format (Hugging Face's model.safetensors): an 8-byte
// little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"format": "pt"}}
// then the tensor bytes (offsets relative to the end of the header).
// Reading validates everything and rejects a bad file with a one-line reason;
// a truncated or corrupt file never crashes the program.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/model/safetensors_layout.h"

namespace ftb {

class SafetensorsFile {
 public:
  // Reads and validates the whole file. Throws InputError naming `path`.
  static SafetensorsFile read(const std::string& path);
  // Same, from bytes already in memory (`where` names them in errors).
  static SafetensorsFile parse(std::string bytes, const std::string& where);

  const std::map<std::string, SafetensorsEntry>& entries() const { return entries_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  // A copy of the tensor in its stored dtype (CPU).
  torch::Tensor tensor(const std::string& name) const;

 private:
  std::string where_;
  std::string bytes_;        // the whole file
  std::size_t data_start_ = 0;
  std::map<std::string, SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// Writes contiguous CPU copies of the tensors, sorted by name, with
// {"format": "pt"} metadata (transformers requires it), through a temporary
// file renamed into place.
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace ftb
