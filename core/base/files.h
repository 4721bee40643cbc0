// The one set of file helpers (POSIX, no LibTorch). Every file ftbench writes
// (reports, charts, CSVs, checkpoints, safetensors, config.json, the rank
// protocol's result) goes through write_file_atomic, so a reader never sees
// half a file and a crash or a full disk never destroys the previous one.
//
// POSIX rather than std::filesystem for the folder helpers: the pip LibTorch
// exports its own copy of libstdc++'s filesystem code, and some of it
// (remove_all) crashes when called from a program linked against it
// (pytorch/pytorch#133437).
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <ostream>
#include <string>

namespace ftb {

// The content goes to "<path>.tmp.<pid>" (the pid: two ranks or two runs
// writing beside each other never share a temporary file), is flushed and
// fsync'ed, then renamed over `path`. On any failure the temporary file is
// removed, the old `path` (if any) is untouched, and InputError names `path`
// and the failing step ("write failed: No space left on device").
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomic(const std::string& path, const std::string& content);

// std::getline with a bound: reads one line (without its '\n') into `line`.
// A line longer than `max_bytes` is not read further: `line` holds its first
// max_bytes bytes and the result is too_long, so a 1 GB line costs
// max_bytes of memory, not 1 GB. At the end of the stream: `end` (and the
// stream's eof/fail bits, as getline sets them); a last line without '\n'
// is `ok` with eofbit set.
enum class LineRead { ok, end, too_long };
LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes);

// The whole file; InputError naming `path` when it cannot be opened.
std::string read_text_file(const std::string& path);
// "" when the file is missing or unreadable (optional side files).
std::string read_text_file_or_empty(const std::string& path);

// mkdir -p; InputError naming the first component that cannot be created or
// is not a folder.
void make_directories(const std::string& dir);
// Checks that `dir` can hold our outputs: creates it (and parents), then
// creates and removes a probe file. InputError naming `flag` and the reason.
// Called before any long work so a bad --out fails in a second, not an hour.
void check_writable_directory(const std::string& dir, const std::string& flag);

// Removes a folder tree (nftw, never following links). Missing paths are
// fine; returns false if anything could not be removed.
bool remove_tree(const std::string& path);

// A fresh folder under $TMPDIR (or /tmp), removed with its contents on
// destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir() { remove_tree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ftb
