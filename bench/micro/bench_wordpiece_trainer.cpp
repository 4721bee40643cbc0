// WordPiece training (core/text/wordpiece_trainer) on real reviews: a preset
// that builds its own vocabulary pays this once per run, before any training,
// so it must stay a few seconds for the 25k-review archive on one core's
// share. Read it against BM_TrainedVocabEncode in the same run: the cost of
// tokenizing the same reviews once with the learned vocabulary, which every
// run pays anyway (train_s / encode_s = training in tokenization passes).
//
// Arguments: reviews used (the shared archive's first N; 25000 = all of it),
// and vocabulary size (0 = the auto rule).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/micro/review_text.h"
#include "core/text/tokenizer.h"
#include "core/text/wordpiece_trainer.h"

namespace {

const std::vector<std::string>& all_reviews() {
  static const std::vector<std::string> texts = ftb_micro::load_reviews(25000, "bench_wordpiece_trainer");
  return texts;
}

std::vector<std::string> first_reviews(int64_t n) {
  const auto& all = all_reviews();
  return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(all.size(), n))};
}

void BM_TrainWordPiece(benchmark::State& state) {
  const auto corpus = first_reviews(state.range(0));
  ftb::WordPieceTrainerOptions options;
  options.vocab_size = static_cast<std::size_t>(state.range(1));
  ftb::TrainedVocab v;
  for (auto _ : state) {
    v = ftb::train_wordpiece(corpus, options);
    benchmark::DoNotOptimize(v.tokens.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(corpus.size()));  // reviews/s
  state.counters["reviews"] = static_cast<double>(corpus.size());
  state.counters["vocab"] = static_cast<double>(v.tokens.size());
  state.counters["distinct_words"] = static_cast<double>(v.distinct_words);
}
BENCHMARK(BM_TrainWordPiece)
    ->Args({4000, 0})
    ->Args({25000, 0})
    ->Args({25000, 16000})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()  // word counting runs on every core
    ->UseRealTime();

// Every review once through the tokenizer with the vocabulary learned from
// them: the yardstick for the training time above.
void BM_TrainedVocabEncode(benchmark::State& state) {
  const auto corpus = first_reviews(state.range(0));
  ftb::WordPieceTrainerOptions options;
  options.vocab_size = static_cast<std::size_t>(state.range(1));
  const auto tok = ftb::WordPieceTokenizer::from_tokens(ftb::train_wordpiece(corpus, options).tokens, "trained");
  std::size_t pieces = 0, words = 0;
  for (auto _ : state) {
    pieces = words = 0;
    for (const auto& text : corpus) {
      auto ids = tok.encode_words(text);
      benchmark::DoNotOptimize(ids.data());
      pieces += ids.size();
    }
  }
  for (const auto& text : corpus) words += tok.basic_tokenize(text).size();
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(corpus.size()));
  // How well the vocabulary fits the text: 1.0 = every word one piece.
  state.counters["pieces_per_word"] = words ? static_cast<double>(pieces) / static_cast<double>(words) : 0;
}
BENCHMARK(BM_TrainedVocabEncode)->Args({4000, 0})->Args({25000, 0})->Unit(benchmark::kMillisecond);

}  // namespace
