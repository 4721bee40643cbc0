// Helpers shared by the data tests: a self-deleting temporary folder.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace ftb_test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           ("ftb_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Writes `bytes` to path/name (creating folders) and returns the full path.
  std::string file(const std::string& name, const std::string& bytes) const {
    const std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
};

// The data folder the data tests read: FTB_SHARED_DATA_DIR (configure with
// -DFTB_DATA_DIR=DIR; default ../shared/data, the project workspace's, which a
// clone lacks). Where a case needs a file that is not there, the reason says
// how to get the data.
inline std::string data_dir() { return FTB_SHARED_DATA_DIR; }
// The project's development copy of IMDB (24,904 reviews).
inline std::string development_archive() { return data_dir() + "/imdb-dev-aclImdb.tar.gz"; }
// The official archive, as tools/download_imdb.py --out DIR writes it.
inline std::string official_archive() { return data_dir() + "/aclImdb_v1.tar.gz"; }
inline std::string data_absent_reason(const std::string& path) {
  return path + " is absent: tools/download_imdb.py --out DIR downloads the official aclImdb_v1.tar.gz; configure with "
         "-DFTB_DATA_DIR=DIR to point the tests at it";
}

}  // namespace ftb_test
