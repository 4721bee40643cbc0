// Tokenized splits and the batch loader: shuffle per epoch, drop_last, padding
// to max_length (the reference pads every sequence to 512) or to the longest
// row of the batch, and a background thread that prepares the next batches
// while the current step runs. The time the consumer waits is measured.
#pragma once

#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/text/text_data.h"
#include "core/text/tokenizer.h"
#include "core/train/train_options.h"

namespace ftb {

struct TokenizedSplit {
  std::vector<std::vector<int32_t>> input_ids;  // each with [CLS] ... [SEP]
  std::vector<int64_t> labels;
  std::size_t size() const { return labels.size(); }
  std::size_t token_count() const;  // non-pad tokens, for tokens/s
  // FNV-1a 64 over every example's label and token ids, in order: the data
  // as the model sees it (text, tokenizer and truncation), whatever its path.
  uint64_t content_hash(uint64_t h) const;
};

// Tokenizes every example (in parallel over `threads` threads; order kept).
TokenizedSplit tokenize_split(const WordPieceTokenizer& tokenizer,
                              const std::vector<Example>& examples, int max_length,
                              int threads);


struct Batch {
  torch::Tensor input_ids;       // (B, T) int64
  torch::Tensor attention_mask;  // (B, T) int64, 1 = token, 0 = pad
  torch::Tensor labels;          // (B) int64
  int64_t real_tokens = 0;       // sum of attention_mask
  // Padding::longest only: each row's real tokens (its mask's leading ones),
  // on the host, so that a micro-batch of it is padded to its own longest row
  // (split_micro_batches, as Lightning / HF pad each micro-batch). Empty when
  // the batch was padded to max_length (every micro-batch keeps that length).
  std::vector<int64_t> row_tokens{};
};

struct LoaderOptions {
  int64_t batch_size = 12;
  bool shuffle = true;
  bool drop_last = true;
  Padding padding = Padding::max_length;
  int max_length = 512;  // pad length for Padding::max_length
  int32_t pad_id = 0;
  uint64_t seed = 123;   // epoch e shuffles with seed + e (same on every rank)
  int prefetch = 2;      // batches prepared ahead; 0 = synchronous
  // Batches in page-locked host memory (a step on a GPU): the host-to-device
  // copy (non_blocking) is then asynchronous instead of a staged, synchronous
  // copy from pageable memory. Needs CUDA; off for a CPU step.
  bool pin_memory = false;
  // Length bucketing (needs Padding::longest): this rank's share of the
  // epoch's permutation is cut into windows of kBucketWindowBatches batches;
  // each window is sorted by length and cut into batches, so a batch holds
  // reviews of similar length and pads little; with shuffle the batches are
  // then shuffled (seed + epoch: random each epoch, the same on every rank).
  // What Hugging Face's group_by_length (LengthGroupedSampler) does.
  bool bucketing = false;
  // Distributed sampler semantics: this rank takes indices rank, rank+world, ...
  // of the epoch's permutation (after drop_last trimming to a multiple of
  // world * batch_size), so ranks see disjoint shards.
  int rank = 0, world_size = 1;
  // Without drop_last: wrap around so every rank gets as many examples (what
  // DistributedSampler does; training needs it, its collectives run in
  // lockstep). Evaluation turns it off: shards may differ by one example and
  // every example is counted exactly once.
  bool even_shards = true;
};

// Batches per sorting window of bucketing (HF's megabatch multiplier, 50).
constexpr std::size_t kBucketWindowBatches = 50;

class BatchLoader {
 public:
  BatchLoader(const TokenizedSplit& split, LoaderOptions options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  int64_t batches_per_epoch() const;
  // Starts (or restarts) an epoch; stops any prefetch of the previous one.
  void start_epoch(int64_t epoch);
  // The next batch of the epoch, or nullopt at its end.
  std::optional<Batch> next();
  // Seconds the consumer spent blocked in next() since construction.
  double wait_s() const { return wait_s_; }
  // The row indices of the current epoch's batches, in order, and the
  // split's size (evaluate places each hit at its example: ranks' shards,
  // bucketing and shuffling leave the split's order).
  const std::vector<std::vector<int64_t>>& epoch_rows() const { return epoch_batches_; }
  std::size_t split_size() const;

 private:
  Batch make_batch(const std::vector<int64_t>& rows) const;
  void producer_loop();
  void stop_producer();

  const TokenizedSplit& split_;
  LoaderOptions opt_;
  std::vector<std::vector<int64_t>> epoch_batches_;  // row indices per batch
  std::size_t cursor_ = 0;  // next batch handed out (synchronous mode)
  double wait_s_ = 0;
  // prefetch state
  std::thread producer_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> ready_;
  std::size_t produced_ = 0, consumed_ = 0;
  bool stop_ = false;
  bool epoch_started_ = false;  // next() before start_epoch() starts epoch 0
  std::exception_ptr error_;    // thrown by the producer, rethrown by next()
};

}  // namespace ftb
