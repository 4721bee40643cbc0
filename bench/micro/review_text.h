// Review text for the micro-benchmarks: the .txt reviews of the shared IMDB
// archive, read here with libarchive (not core's reader, so a benchmark
// measures only what it names); when the archive is absent, generated
// review-like text with the same markup, said once on stderr.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ftb_micro {

inline const char* const kArchive = FTB_SHARED_DATA_DIR "/imdb-dev-aclImdb.tar.gz";

inline bool is_review(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0 &&
         (path.find("/pos/") != std::string::npos || path.find("/neg/") != std::string::npos);
}

inline std::vector<std::string> read_archive_reviews(const char* path, std::size_t max_reviews) {
  std::vector<std::string> reviews;
  std::unique_ptr<archive, decltype(&archive_read_free)> ar(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(ar.get());
  archive_read_support_format_all(ar.get());
  if (archive_read_open_filename(ar.get(), path, 1 << 16) != ARCHIVE_OK) return reviews;
  archive_entry* entry = nullptr;
  while (reviews.size() < max_reviews && archive_read_next_header(ar.get(), &entry) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG || !is_review(archive_entry_pathname(entry)))
      continue;
    std::string text(static_cast<std::size_t>(archive_entry_size(entry)), '\0');
    const auto n = archive_read_data(ar.get(), text.data(), text.size());
    if (n < 0) break;  // a damaged archive: benchmark what was read
    text.resize(static_cast<std::size_t>(n));
    reviews.push_back(std::move(text));
  }
  return reviews;
}

// Review-like English with IMDB's markup, a few accents and numbers.
inline std::vector<std::string> generated_reviews(std::size_t count) {
  const char* const words[] = {"the", "movie", "was", "surprisingly", "good", "and", "acting",
                               "director's", "plot", "twist", "café", "naïve", "cinematography",
                               "I", "didn't", "expect", "10/10", "(really)", "boring...", "it's"};
  std::vector<std::string> reviews;
  uint32_t x = 12345;
  for (std::size_t r = 0; r < count; ++r) {
    std::string text;
    for (int w = 0; w < 230; ++w) {
      x = x * 1664525u + 1013904223u;
      text += words[(x >> 16) % (sizeof(words) / sizeof(words[0]))];
      text += (x >> 8) % 29 == 0 ? ".<br /><br />" : (x >> 8) % 11 == 0 ? ", " : " ";
    }
    reviews.push_back(std::move(text));
  }
  return reviews;
}

// Up to max_reviews reviews, from the archive when it is there.
inline std::vector<std::string> load_reviews(std::size_t max_reviews, const char* who) {
  auto t = read_archive_reviews(kArchive, max_reviews);
  if (t.empty()) {
    std::fprintf(stderr, "%s: %s absent or unreadable; using generated text\n", who, kArchive);
    t = generated_reviews(max_reviews);
  }
  return t;
}

}  // namespace ftb_micro
