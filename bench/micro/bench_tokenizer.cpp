// Tokenizer throughput on real review text, single-threaded, so bytes/s is
// MB/s per core. Tokenization runs on the data-loading side of every step: it
// must stay far cheaper than a training step (bench_step.cpp).
//
// Text: the .txt reviews of the shared IMDB archive, read here with libarchive
// (not core's reader, so this benchmark measures the tokenizer only); when the
// archive is absent, a generated review-like text with the same markup.
// Vocabulary: the real bert-base-uncased one; the benchmarks skip without it.
#include <archive.h>
#include <archive_entry.h>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/text/tokenizer.h"

namespace {

const char* const kArchive = FTB_SHARED_DATA_DIR "/imdb-dev-aclImdb.tar.gz";
const char* const kVocab = FTB_SHARED_DATA_DIR "/bert-base-uncased-vocab.txt";
constexpr std::size_t kMaxReviews = 4000;  // ~5 MB: enough to defeat caches, quick to load

bool is_review(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0 &&
         (path.find("/pos/") != std::string::npos || path.find("/neg/") != std::string::npos);
}

std::vector<std::string> read_archive_reviews(const char* path) {
  std::vector<std::string> reviews;
  std::unique_ptr<archive, decltype(&archive_read_free)> ar(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(ar.get());
  archive_read_support_format_all(ar.get());
  if (archive_read_open_filename(ar.get(), path, 1 << 16) != ARCHIVE_OK) return reviews;
  archive_entry* entry = nullptr;
  while (reviews.size() < kMaxReviews && archive_read_next_header(ar.get(), &entry) == ARCHIVE_OK) {
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
std::vector<std::string> generated_reviews() {
  const char* const words[] = {"the", "movie", "was", "surprisingly", "good", "and", "acting",
                               "director's", "plot", "twist", "café", "naïve", "cinematography",
                               "I", "didn't", "expect", "10/10", "(really)", "boring...", "it's"};
  std::vector<std::string> reviews;
  uint32_t x = 12345;
  for (std::size_t r = 0; r < kMaxReviews; ++r) {
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

const std::vector<std::string>& reviews() {
  static const std::vector<std::string> texts = [] {
    auto t = read_archive_reviews(kArchive);
    if (t.empty()) {
      std::fprintf(stderr, "bench_tokenizer: %s absent or unreadable; using generated text\n",
                   kArchive);
      t = generated_reviews();
    }
    return t;
  }();
  return texts;
}

// Null when the vocabulary is absent (the benchmarks then skip with the path).
const ftb::WordPieceTokenizer* tokenizer() {
  static const std::unique_ptr<ftb::WordPieceTokenizer> tok = [] {
    if (!std::filesystem::exists(kVocab)) return std::unique_ptr<ftb::WordPieceTokenizer>();
    return std::make_unique<ftb::WordPieceTokenizer>(ftb::WordPieceTokenizer::from_file(kVocab));
  }();
  return tok.get();
}

// Whole reviews, no truncation: every byte is tokenized, so bytes/s is honest.
void BM_TokenizerEncodeWords(benchmark::State& state) {
  const auto* tok = tokenizer();
  if (!tok) {
    state.SkipWithError((std::string(kVocab) + ": absent").c_str());
    return;
  }
  const auto& texts = reviews();
  std::size_t i = 0, bytes = 0, tokens = 0;
  for (auto _ : state) {
    const std::string& text = texts[i];
    i = i + 1 == texts.size() ? 0 : i + 1;
    auto ids = tok->encode_words(text);
    benchmark::DoNotOptimize(ids.data());
    bytes += text.size();
    tokens += ids.size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(tokens),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TokenizerEncodeWords);

// What training does: [CLS] ... [SEP] at max_length 512 (the scan stops once
// 510 pieces are out, so long reviews cost less than their size).
void BM_TokenizerEncode512(benchmark::State& state) {
  const auto* tok = tokenizer();
  if (!tok) {
    state.SkipWithError((std::string(kVocab) + ": absent").c_str());
    return;
  }
  const auto& texts = reviews();
  std::size_t i = 0;
  for (auto _ : state) {
    auto ids = tok->encode(texts[i], 512);
    benchmark::DoNotOptimize(ids.data());
    i = i + 1 == texts.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());  // reviews per second
}
BENCHMARK(BM_TokenizerEncode512);

}  // namespace
