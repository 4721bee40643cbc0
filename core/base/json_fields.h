// Reading JSON that users hand us (reports from other machines, config.json,
// the rank protocol's result) with errors that name the full key path
// ("results[2].throughput.train_samples_per_s: missing key"), as j.at()
// would name the key but with its parents, so a user can find it in a
// 2,000-line report. Header-only on nlohmann/json; no LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/base/errors.h"
#include "core/base/files.h"

namespace ftb {

// Read access to one JSON object; every error is an InputError.
class JsonFields {
 public:
  using json = nlohmann::json;
  JsonFields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(where() + "expected an object, got " + j_.type_name());
  }
  bool has(const char* key) const { return j_.contains(key); }

  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw InputError("missing key '" + name(key) + "'");
    return *it;
  }
  // null reads back as NaN: non-finite numbers are written as null by nlohmann.
  double number(const char* key) const {
    const json& v = at(key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) throw type(key, "a number", v);
    return v.get<double>();
  }
  int64_t integer(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer()) throw type(key, "an integer", v);
    return v.get<int64_t>();
  }
  std::string string(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) throw type(key, "a string", v);
    return v.get<std::string>();
  }
  JsonFields object(const char* key) const { return JsonFields(at(key), name(key)); }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw type(key, "an array", v);
    return v;
  }
  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  std::string where() const { return path_.empty() ? "" : path_ + ": "; }
  InputError type(const char* key, const char* want, const json& v) const {
    return InputError("key '" + name(key) + "': expected " + want + ", got " + v.type_name());
  }
  const json& j_;
  std::string path_;
};

inline std::string indexed(const std::string& name, size_t i) { return name + "[" + std::to_string(i) + "]"; }

// Strips nlohmann's "[json.exception.parse_error.101] " prefix: the user needs
// the position and the reason, not the exception id.
inline std::string json_message(const nlohmann::json::exception& e) {
  std::string m = e.what();
  if (m.rfind("[json.exception.", 0) == 0) {
    auto close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

// A number as the reports write one: null where it is not finite (NaN: not
// measured), so a reader tests is_null() rather than parsing "nan".
inline nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// The JSON document in `path`: InputError naming it when it cannot be read or
// is not JSON.
inline nlohmann::json read_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    input_error(path, "not valid JSON: " + json_message(e));
  }
}

}  // namespace ftb
