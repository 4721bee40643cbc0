// Errors that reach the user. An InputError is bad input or bad usage: the
// command prints its one-line message and exits with code 2. Anything else
// escaping a command is a bug or an environment failure (exit code 1).
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace ftb
