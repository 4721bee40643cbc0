// Shared by the libFuzzer targets in this folder (see CMakeLists.txt): the
// bytes as a file for the readers that take a path, and the one rule every
// target checks: a parser either accepts the input or throws InputError (the
// one-line "bad input, exit 2" of the CLI). Any other exception escaping, a
// crash, a sanitizer report, a hang or unbounded memory is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/base/errors.h"
#include "core/base/files.h"

namespace ftb::fuzz {

inline std::string_view as_view(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// One scratch folder per process (libFuzzer and the replay driver run inputs
// one after another in one process), removed at exit.
inline const std::string& scratch_dir() {
  static const ftb::TempDir dir("ftb_fuzz");
  return dir.path();
}

// Writes the bytes to scratch_dir()/name (replacing the previous input) and
// returns the path.
inline std::string write_input(std::string_view bytes, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write the fuzz input to " + path);
  return path;
}

// Runs `parse`; an InputError is the expected answer to bad input.
template <class F>
bool accepts(F&& parse) {
  try {
    parse();
    return true;
  } catch (const ftb::InputError&) {
    return false;
  }
}

}  // namespace ftb::fuzz
