// Reading JSON-lines inputs: every line parsed before any output is written,
// so a bad line 7 fails the command cleanly (file:line, exit 2); a line
// beyond limits::kMaxLineBytes fails the same way, having read no more of it.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "core/text/errors.h"
#include "core/text/files.h"
#include "core/text/limits.h"

namespace ftb {

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) input_error(path, "cannot open input");
  std::vector<nlohmann::json> out;
  std::string line;
  for (int n = 1;; ++n) {
    const LineRead got = read_line(in, line, limits::kMaxLineBytes);
    if (got == LineRead::end) break;
    if (got == LineRead::too_long)
      input_error(path + ":" + std::to_string(n),
                  "line longer than the " + limits::bytes_text(limits::kMaxLineBytes) + " limit (core/text/limits.h)");
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines
    try {
      out.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception&) {
      input_error(path + ":" + std::to_string(n), "not valid JSON");
    }
    if (!out.back().is_object()) input_error(path + ":" + std::to_string(n), "each line must be a JSON object");
  }
  return out;
}

}  // namespace ftb
