// IMDB readers: the official archive (read with libarchive, never extracted),
// an extracted aclImdb/ folder, and the dispatch on what a data path is.
// Both readers return the same examples in the same order (sorted by the path
// below aclImdb/), so switching between archive and folder changes nothing.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.h"
#include "core/base/limits.h"
#include "core/text/text_data.h"

namespace ftb {
namespace fs = std::filesystem;
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](unsigned char c) { return std::isdigit(c) != 0; });
}

// `<id>_<rating>.txt`, as in every aclImdb review file name.
bool is_review_name(const std::string& name) {
  const std::string ext = ".txt";
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
    return false;
  const std::string stem = name.substr(0, name.size() - ext.size());
  const std::size_t us = stem.find('_');
  return us != std::string::npos && all_digits(stem.substr(0, us)) &&
         all_digits(stem.substr(us + 1));
}

// For a member path like "./aclImdb/train/pos/0_9.txt": the sort key
// "train/pos/0_9.txt" and the label, or false when it is not a review
// (README, imdb.vocab, train/unsup/, train/labeledBow.feat, ...).
bool review_key(const std::string& path, std::string* key, int* label) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '/');)
    if (!p.empty() && p != ".") parts.push_back(p);
  if (parts.size() < 3) return false;
  const std::string& split = parts[parts.size() - 3];
  const std::string& cls = parts[parts.size() - 2];
  const std::string& name = parts.back();
  if ((split != "train" && split != "test") || (cls != "pos" && cls != "neg") ||
      !is_review_name(name))
    return false;
  *key = split + "/" + cls + "/" + name;
  *label = cls == "pos" ? 1 : 0;
  return true;
}

using Keyed = std::vector<std::pair<std::string, Example>>;

std::vector<Example> sorted_examples(Keyed keyed) {
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Example> out;
  out.reserve(keyed.size());
  for (auto& kv : keyed) out.push_back(std::move(kv.second));
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

// libarchive can fail without a message (null), as it does on some
// corrupt gzip streams at open (found by tests/fuzz).
std::string archive_message(archive* ar) {
  const char* msg = archive_error_string(ar);
  return std::string(msg ? msg : "unknown libarchive error");
}

[[noreturn]] void archive_fail(const std::string& path, archive* ar, const std::string& what) {
  input_error(path, what + " (truncated or corrupt archive?): " + archive_message(ar));
}

// A reader of tar, gzip'd or not, open on `path`.
ArchivePtr open_archive(const std::string& path) {
  ArchivePtr ar(archive_read_new(), archive_read_free);
  if (!ar) input_error(path, "cannot allocate an archive reader");
  archive_read_support_filter_all(ar.get());
  archive_read_support_format_tar(ar.get());
  archive_read_support_format_gnutar(ar.get());
  // 1 MiB blocks: the archive is read sequentially, once.
  if (archive_read_open_filename(ar.get(), path.c_str(), 1 << 20) != ARCHIVE_OK)
    input_error(path, "cannot open archive: " + archive_message(ar.get()));
  return ar;
}

// The current member's text; its declared `size` is checked first, then what
// it actually expands to, as a header can understate it.
std::string read_review_text(archive* ar, const std::string& path, const char* name, const std::string& shown,
                             std::uint64_t size) {
  const auto too_large = [&] {
    input_error(path, "member " + shown + " is larger than the " + limits::bytes_text(limits::kMaxReviewBytes) +
                          " a review may hold (core/base/limits.h)");
  };
  if (size > limits::kMaxReviewBytes) too_large();
  std::string text;
  text.reserve(size);
  char buf[64 * 1024];
  for (;;) {
    la_ssize_t n = archive_read_data(ar, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (n == ARCHIVE_WARN) continue;
      archive_fail(path, ar, "cannot read member " + std::string(name));
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > limits::kMaxReviewBytes) too_large();
  }
  return text;
}

}  // namespace

std::vector<Example> read_imdb_archive(const std::string& path) {
  const ArchivePtr ar = open_archive(path);
  Keyed keyed;
  std::uint64_t members = 0, declared_bytes = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(ar.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) archive_fail(path, ar.get(), "cannot read the next member");
    // Bombs end here, from the headers, before their data is expanded
    // (core/base/limits.h): millions of members, or sizes adding up to more
    // than any IMDB archive holds.
    if (++members > limits::kMaxArchiveMembers)
      input_error(path, "more than " + std::to_string(limits::kMaxArchiveMembers) +
                            " members (the limit; the official IMDB archive has about 100,000)");
    const char* name = archive_entry_pathname(entry);
    const std::string shown = name ? name : "?";
    const la_int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    const std::uint64_t size = static_cast<std::uint64_t>(std::max<la_int64_t>(0, declared));
    declared_bytes += size;
    if (declared_bytes > limits::kMaxArchiveBytes ||
        static_cast<std::uint64_t>(archive_filter_bytes(ar.get(), 0)) > limits::kMaxArchiveBytes)
      input_error(path, "expands to more than the " + limits::bytes_text(limits::kMaxArchiveBytes) +
                            " limit (at member " + shown + ")");
    std::string key;
    int label = 0;
    if (archive_entry_filetype(entry) != AE_IFREG || !name || !review_key(name, &key, &label)) {
      // Skipping still decompresses the member, so corruption inside it is
      // detected here too rather than silently ignored.
      if (archive_read_data_skip(ar.get()) < ARCHIVE_WARN) archive_fail(path, ar.get(), "cannot skip a member");
      continue;
    }
    std::string text = read_review_text(ar.get(), path, name, shown, size);
    keyed.emplace_back(std::move(key), Example{std::move(text), label});
  }
  if (members == 0) input_error(path, "not a tar archive, or an empty one");
  return sorted_examples(std::move(keyed));
}

std::vector<Example> read_imdb_folder(const std::string& path) {
  // Accept the aclImdb/ folder itself or the folder that holds it.
  fs::path root = path;
  if (!fs::is_directory(root / "train") && !fs::is_directory(root / "test") &&
      fs::is_directory(root / "aclImdb"))
    root /= "aclImdb";
  if (!fs::is_directory(root / "train") && !fs::is_directory(root / "test"))
    input_error(path, "not an aclImdb folder (no train/ or test/ below it or below aclImdb/)");

  Keyed keyed;
  std::uint64_t files = 0;
  for (const char* split : {"train", "test"}) {
    for (const char* cls : {"pos", "neg"}) {
      const fs::path dir = root / split / cls;
      if (!fs::is_directory(dir)) continue;
      for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
        if (++files > limits::kMaxArchiveMembers)
          input_error(path, "more than " + std::to_string(limits::kMaxArchiveMembers) +
                                " files in its train/ and test/ class folders (the limit; IMDB has 100,000)");
        std::string key;
        int label = 0;
        const std::string rel = std::string(split) + "/" + cls + "/" + e.path().filename().string();
        if (!e.is_regular_file() || !review_key(rel, &key, &label)) continue;
        if (e.file_size() > limits::kMaxReviewBytes)
          input_error(e.path().string(), "larger than the " + limits::bytes_text(limits::kMaxReviewBytes) +
                                             " a review may hold (core/base/limits.h)");
        std::ifstream in(e.path(), std::ios::binary);
        if (!in) input_error(e.path().string(), "cannot read review file");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        keyed.emplace_back(std::move(key), Example{std::move(text), label});
      }
    }
  }
  return sorted_examples(std::move(keyed));
}

std::vector<Example> read_examples(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) input_error(path, "no such file or directory");
  std::vector<Example> out;
  if (fs::is_directory(path, ec)) {
    if (is_split_folder(path)) {
      // The split is already made; concatenated in the reference's order.
      Splits s = load_split_folder(path);
      out = std::move(s.train);
      for (auto* part : {&s.val, &s.test})
        out.insert(out.end(), std::make_move_iterator(part->begin()),
                   std::make_move_iterator(part->end()));
    } else {
      out = read_imdb_folder(path);
    }
  } else if (ends_with(path, ".tar.gz") || ends_with(path, ".tgz") || ends_with(path, ".tar")) {
    out = read_imdb_archive(path);
  } else if (ends_with(path, ".csv")) {
    out = read_csv(path);
  } else {
    input_error(path, "unknown data format (expected .tar.gz/.tgz/.tar, .csv, or a folder)");
  }
  if (out.empty()) input_error(path, "no labelled reviews found");
  return out;
}

}  // namespace ftb
