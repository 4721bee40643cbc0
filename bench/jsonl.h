// Reading JSON-lines inputs: every line parsed before any output is written,
// so a bad line 7 fails the command cleanly (file:line, exit 2); a line
// beyond limits::kMaxLineBytes fails the same way, having read no more of it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/limits.h"

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
                  "line longer than the " + limits::bytes_text(limits::kMaxLineBytes) + " limit (core/base/limits.h)");
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

// tokenize's line: its string "text".
inline std::string text_of_line(const nlohmann::json& line, const std::string& where) {
  if (!line.contains("text") || !line.at("text").is_string()) input_error(where, "needs a string \"text\"");
  return line.at("text").get<std::string>();
}

// predict's line: {"text": ...} (tokenized by the caller) or token ids with
// an optional attention mask (all ones when absent).
struct PredictLine {
  bool has_text = false;
  std::string text;
  std::vector<int64_t> ids, mask;
};

inline PredictLine predict_line(const nlohmann::json& line, const std::string& where) {
  PredictLine p;
  if (line.contains("text")) {
    if (!line.at("text").is_string()) input_error(where, "\"text\" must be a string");
    p.has_text = true;
    p.text = line.at("text").get<std::string>();
    return p;
  }
  if (!line.contains("input_ids")) input_error(where, "needs \"text\" or \"input_ids\"");
  // Element by element: nlohmann would convert 1.5 or 1e300 to an integer
  // (the latter is undefined behaviour), so only JSON integers are taken.
  auto integers = [&](const char* key) {
    const auto& a = line.at(key);
    if (!a.is_array()) input_error(where, "input_ids / attention_mask must be arrays of integers");
    std::vector<int64_t> v;
    v.reserve(a.size());
    for (const auto& x : a) {
      if (!x.is_number_integer()) input_error(where, "input_ids / attention_mask must be arrays of integers");
      if (x.is_number_unsigned() && x.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        input_error(where, std::string(key) + " holds " + x.dump() + ", out of range");
      v.push_back(x.get<int64_t>());
    }
    return v;
  };
  p.ids = integers("input_ids");
  p.mask = line.contains("attention_mask") ? integers("attention_mask") : std::vector<int64_t>(p.ids.size(), 1);
  if (p.mask.size() != p.ids.size()) input_error(where, "attention_mask length differs from input_ids");
  return p;
}

// Token ids a model with these sizes can take.
inline void check_predict_ids(const std::vector<int64_t>& ids, int64_t max_positions, int64_t vocab_size,
                              const std::string& where) {
  if (ids.empty()) input_error(where, "empty input");
  if (static_cast<int64_t>(ids.size()) > max_positions) input_error(where, "longer than the model's max_position_embeddings");
  for (auto id : ids)
    if (id < 0 || id >= vocab_size) input_error(where, "token id " + std::to_string(id) + " out of range");
}

}  // namespace ftb
