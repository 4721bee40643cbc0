// Writing a file so that readers never see half of it: the content goes to
// "<path>.tmp.<pid>", which is renamed over `path` only once complete. A
// failure removes the temporary file and leaves any old `path` intact.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ftb {

// `write` fills the stream (binary mode). InputError naming `path` when the
// file cannot be written or renamed into place.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);
inline void write_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

}  // namespace ftb
