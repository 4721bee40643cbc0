// JSON to text for everything ftbench writes or prints. Strings that reached a
// document from outside (a failure reason quoting a file name, a scenario
// name read from a history database) may hold bytes that are not UTF-8;
// nlohmann's default dump() throws on them, which would turn a report into an
// exception. Here they become U+FFFD instead. Header-only on nlohmann/json.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ftb {

// indent < 0: one line; otherwise pretty-printed with that many spaces.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A JSON file's contents as ftbench writes every one: 2-space indent, final newline.
inline std::string json_file_text(const nlohmann::json& j) { return json_text(j, 2) + "\n"; }

}  // namespace ftb
