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

}  // namespace ftb
