#include "core/base/files.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/base/errors.h"

namespace ftb {
namespace {

// A streambuf over a file descriptor: the writer callback streams straight to
// the temporary file (safetensors of a full model are hundreds of MB; no copy
// in memory), and errors keep their errno.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  int error() const { return error_; }
  bool flush_all() { return drain() && error_ == 0; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (!drain()) return 0;
    if (!write_all(s, static_cast<size_t>(n))) return 0;
    return n;
  }

 private:
  bool drain() {
    const size_t n = static_cast<size_t>(pptr() - pbase());
    setp(buf_, buf_ + sizeof buf_);
    return write_all(buf_, n);
  }
  bool write_all(const char* p, size_t n) {
    if (error_) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

thread_local int remove_failures = 0;
int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  if (std::remove(path) != 0 && errno != ENOENT) ++remove_failures;
  return 0;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto fail = [&](const std::string& what, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    input_error(path, what + ": " + std::strerror(err));
  };
  if (fd < 0) fail("cannot create the temporary file", errno);
  {
    FdBuf buf(fd);
    std::ostream out(&buf);
    write(out);
    if (!buf.flush_all()) fail("write failed", buf.error() ? buf.error() : EIO);
    if (!out) fail("write failed", EIO);
  }
  // Without fsync a crash after the rename can leave an empty file under the
  // new name on some file systems; the cost is one flush per file.
  if (::fsync(fd) != 0) fail("fsync failed", errno);
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) fail("close failed", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename the temporary file into place", errno);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  // istream::getline into a buffer: as fast as std::getline (it scans the
  // stream's buffer), in pieces of 64 KiB, so the bound is checked as it goes.
  char buf[1 << 16];
  const auto keep = [&](std::size_t n) {
    line.append(buf, std::min(n, max_bytes + 1 - line.size()));
    return line.size() > max_bytes;
  };
  for (;;) {
    in.getline(buf, sizeof buf);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (in.bad()) return LineRead::end;
    if (in.eof()) {  // the last line, without '\n' (or nothing left)
      if (line.empty() && n == 0) return LineRead::end;  // eofbit + failbit, as getline
      in.clear(std::ios::eofbit);
      if (keep(n)) break;
      return LineRead::ok;
    }
    if (!in.fail()) {  // '\n' found: extracted and counted, not stored
      if (keep(n - 1)) break;
      return LineRead::ok;
    }
    in.clear();  // the buffer filled before the '\n': read on
    if (keep(n)) break;
  }
  line.resize(max_bytes);
  return LineRead::too_long;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_text_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void make_directories(const std::string& dir) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    partial = dir.substr(0, pos);
    if (partial.empty() || ::mkdir(partial.c_str(), 0755) == 0 || errno == EEXIST) continue;
    input_error(partial, std::string("cannot create directory: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) input_error(dir, "exists and is not a directory");
}

void check_writable_directory(const std::string& dir, const std::string& flag) {
  const std::string d = dir.empty() ? "." : dir;
  try {
    make_directories(d);
  } catch (const InputError& e) {
    input_error(flag, e.what());
  }
  const std::string probe = d + "/.ftbench-probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) input_error(flag, d + ": not writable: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

bool remove_tree(const std::string& path) {
  remove_failures = 0;
  // FTW_DEPTH: children before their folder; FTW_PHYS: never follow links.
  if (::nftw(path.c_str(), remove_entry, /*nopenfd=*/16, FTW_DEPTH | FTW_PHYS) != 0) return errno == ENOENT;
  return remove_failures == 0;
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/" + prefix + "XXXXXX";
  if (!::mkdtemp(templ.data())) input_error(templ, "cannot create a temporary folder");
  path_ = templ;
}

}  // namespace ftb
