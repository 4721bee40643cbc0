// Tokenizer throughput on real review text, single-threaded, so bytes/s is
// MB/s per core. Tokenization runs on the data-loading side of every step: it
// must stay far cheaper than a training step (bench_step.cpp).
//
// Text: the shared IMDB archive's first reviews (review_text.h), or generated
// review-like text when it is absent.
// Vocabulary: the real bert-base-uncased one; the benchmarks skip without it.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/micro/review_text.h"
#include "core/text/tokenizer.h"

namespace {

const char* const kVocab = FTB_SHARED_DATA_DIR "/bert-base-uncased-vocab.txt";
constexpr std::size_t kMaxReviews = 4000;  // ~5 MB: enough to defeat caches, quick to load

const std::vector<std::string>& reviews() {
  static const std::vector<std::string> texts = ftb_micro::load_reviews(kMaxReviews, "bench_tokenizer");
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
