// Errors that reach the user. An InputError is bad input or bad usage: the
// command prints its one-line message and exits with code 2. Anything else
// escaping a command is a bug or an environment failure (exit code 1).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ftb {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws InputError("<where>: <what>") so every message names its file or flag.
[[noreturn]] inline void input_error(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

// The first line of an error message: c10::Error messages carry a backtrace
// after it, and reports, rank files and the console want one line.
inline std::string first_line(std::string message) {
  if (auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
  return message;
}

// A message made to fit on one line: control characters that a quoted key,
// file name or value may carry (a newline in a JSON key, a tab in a path)
// become C escapes (\n, \t, \x1b), so the one-line error stays one line.
inline std::string one_line(const std::string& message) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(message.size());
  for (unsigned char c : message) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else out += static_cast<char>(c);
  }
  return out;
}

// "a, b, c and 5 more": a list of names that keeps a message on one line.
inline std::string names_for_message(const std::vector<std::string>& names, std::size_t max_shown = 3) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < max_shown; ++i) s += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > max_shown) s += " and " + std::to_string(names.size() - max_shown) + " more";
  return s;
}

}  // namespace ftb
