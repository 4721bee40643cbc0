// A value in nested JSON objects by dotted path ("workload.train_examples",
// "clocks_max_mhz.sm"): the one lookup the report reader and compare share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ftb {

// nullptr when a part of the path is absent or not an object.
inline const nlohmann::json* json_at_path(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* at = &j;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

}  // namespace ftb
