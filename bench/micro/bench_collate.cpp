// Batch collation on the loader side: row indices to padded (B,T) tensors of
// ids, mask and labels (BatchLoader::next, synchronous: prefetch 0), from
// review-like lengths (log-normal, median ~230 tokens, capped at 512, as
// IMDB under the bert-base-uncased vocabulary). Padding to max_length (the
// reference) and to the longest row of the batch. Counter: samples/s; a
// training step must take far longer than this (bench_step.cpp).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/train/batching.h"

namespace {

ftb::TokenizedSplit review_like_split(std::size_t n) {
  std::mt19937 gen(123);
  std::lognormal_distribution<double> length(std::log(230.0), 0.6);
  std::uniform_int_distribution<int32_t> token(1000, 30000);
  ftb::TokenizedSplit s;
  for (std::size_t i = 0; i < n; ++i) {
    const auto len = std::clamp<int64_t>(std::llround(length(gen)), 8, 512);
    std::vector<int32_t> ids(static_cast<std::size_t>(len));
    for (auto& t : ids) t = token(gen);
    ids.front() = 101, ids.back() = 102;
    s.input_ids.push_back(std::move(ids));
    s.labels.push_back(static_cast<int64_t>(i % 2));
  }
  return s;
}

// arg 0: batch size; arg 1: padding (0 max_length, 1 longest).
void BM_Collate(benchmark::State& state) {
  static const ftb::TokenizedSplit split = review_like_split(2000);
  ftb::LoaderOptions o;
  o.batch_size = state.range(0);
  o.padding = state.range(1) == 0 ? ftb::Padding::max_length : ftb::Padding::longest;
  o.max_length = 512;
  o.prefetch = 0;  // collate on this thread, inside the timed region
  ftb::BatchLoader loader(split, o);
  int64_t epoch = 0;
  loader.start_epoch(epoch);
  for (auto _ : state) {
    auto b = loader.next();
    if (!b) {
      state.PauseTiming();
      loader.start_epoch(++epoch);
      state.ResumeTiming();
      b = loader.next();
    }
    benchmark::DoNotOptimize(b->input_ids.data_ptr());
  }
  state.SetLabel(ftb::to_string(o.padding));
  state.counters["samples"] =
      benchmark::Counter(static_cast<double>(o.batch_size), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Collate)->ArgNames({"batch", "padding"})->ArgsProduct({{12, 32}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
