// core/base/files.h: the one atomic writer and the folder helpers.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "core/base/errors.h"
#include "core/base/files.h"

using namespace ftb;

TEST_CASE("write_file_atomic writes, replaces and reads back") {
  TempDir dir("ftb-files-");
  const std::string path = dir.path() + "/a.txt";
  write_file_atomic(path, "one");
  CHECK(read_text_file(path) == "one");
  write_file_atomic(path, [](std::ostream& out) { out << "two" << 2; });
  CHECK(read_text_file(path) == "two2");
  // no temporary file left beside it
  CHECK(::access((path + ".tmp." + std::to_string(::getpid())).c_str(), F_OK) != 0);
}

TEST_CASE("write_file_atomic into a missing folder names the file and keeps nothing") {
  TempDir dir("ftb-files-");
  const std::string path = dir.path() + "/missing/a.txt";
  try {
    write_file_atomic(path, "x");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind(path + ": ", 0) == 0);
  }
}

TEST_CASE("a failing writer leaves the previous file intact") {
  TempDir dir("ftb-files-");
  const std::string path = dir.path() + "/keep.txt";
  write_file_atomic(path, "previous");
  CHECK_THROWS(write_file_atomic(path, [](std::ostream& out) {
    out << "half";
    throw std::runtime_error("writer failed");
  }));
  CHECK(read_text_file(path) == "previous");
}

TEST_CASE("check_writable_directory: creates folders, rejects a regular file naming the flag") {
  TempDir dir("ftb-files-");
  check_writable_directory(dir.path() + "/x/y", "--out");
  struct stat st {};
  CHECK(::stat((dir.path() + "/x/y").c_str(), &st) == 0);
  write_file_atomic(dir.path() + "/file", "x");
  try {
    check_writable_directory(dir.path() + "/file", "--out");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("--out: ", 0) == 0);
  }
}

TEST_CASE("remove_tree removes nested folders, missing paths are fine") {
  std::string path;
  {
    TempDir dir("ftb-files-");
    path = dir.path();
    make_directories(path + "/a/b/c");
    write_file_atomic(path + "/a/b/c/f", "x");
  }
  CHECK(::access(path.c_str(), F_OK) != 0);
  CHECK(remove_tree(path));
}

TEST_CASE("read_line reads lines as getline does, and stops a line at its bound") {
  std::istringstream in("ab\n\n" + std::string(70000, 'x') + "\nlast");
  std::string line;
  CHECK(read_line(in, line, 100000) == LineRead::ok);
  CHECK(line == "ab");
  CHECK(read_line(in, line, 100000) == LineRead::ok);
  CHECK(line.empty());
  CHECK(read_line(in, line, 70000) == LineRead::ok);  // exactly the bound, across 64 KiB pieces
  CHECK(line.size() == 70000);
  CHECK(read_line(in, line, 100000) == LineRead::ok);
  CHECK(line == "last");
  CHECK(in.eof());  // a last line without '\n', as getline
  CHECK(read_line(in, line, 100000) == LineRead::end);
  CHECK(line.empty());

  std::istringstream big(std::string(200000, 'y') + "\nnext\n");
  CHECK(read_line(big, line, 1000) == LineRead::too_long);
  CHECK(line.size() == 1000);  // never more than the bound is kept
  std::istringstream edge(std::string(65535, 'z'));  // fills getline's buffer, then EOF
  CHECK(read_line(edge, line, 100000) == LineRead::ok);
  CHECK(line.size() == 65535);
  CHECK(read_line(edge, line, 100000) == LineRead::end);
}
