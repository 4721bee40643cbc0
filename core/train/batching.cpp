// Tokenized splits and the batch loader (see batching.h). The loader's order
// is a pure function of (seed, epoch, rank, world_size), so every rank agrees
// on the epoch's permutation without communicating, and prefetching changes
// when a batch is built, never what it holds.
#include "core/train/batching.h"

#include "core/base/fnv_hash.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "core/base/errors.h"
#include "core/base/portable_random.h"

namespace ftb {

std::size_t TokenizedSplit::token_count() const {
  std::size_t n = 0;
  for (const auto& ids : input_ids) n += ids.size();
  return n;
}

uint64_t TokenizedSplit::content_hash(uint64_t h) const {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    h = fnv1a64(&labels[i], sizeof labels[i], h);
    const uint64_t n = input_ids[i].size();
    h = fnv1a64(&n, sizeof n, h);
    h = fnv1a64(input_ids[i].data(), input_ids[i].size() * sizeof(int32_t), h);
  }
  return h;
}

TokenizedSplit tokenize_split(const WordPieceTokenizer& tokenizer,
                              const std::vector<Example>& examples, int max_length,
                              int threads) {
  TokenizedSplit out;
  const std::size_t n = examples.size();
  out.input_ids.resize(n);
  out.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.labels[i] = examples[i].label;

  std::size_t workers = threads > 0 ? static_cast<std::size_t>(threads)
                                    : std::max(1u, std::thread::hardware_concurrency());
  workers = std::max<std::size_t>(1, std::min(workers, n));
  // Contiguous chunks, each thread writing its own slots: order is kept and
  // no locking is needed. encode() is const and thread-safe.
  std::vector<std::exception_ptr> errors(workers);
  auto work = [&](std::size_t w) {
    try {
      for (std::size_t i = n * w / workers; i < n * (w + 1) / workers; ++i)
        out.input_ids[i] = tokenizer.encode(examples[i].text, max_length);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

BatchLoader::BatchLoader(const TokenizedSplit& split, LoaderOptions options)
    : split_(split), opt_(options) {
  if (opt_.batch_size < 1) input_error("batch_size", "must be at least 1");
  if (opt_.max_length < 2) input_error("max_length", "must be at least 2 ([CLS] and [SEP])");
  if (opt_.world_size < 1 || opt_.rank < 0 || opt_.rank >= opt_.world_size)
    input_error("rank", "rank " + std::to_string(opt_.rank) + " is outside world size " +
                            std::to_string(opt_.world_size));
  if (opt_.prefetch < 0) input_error("prefetch", "must be 0 (synchronous) or more");
  if (opt_.bucketing && opt_.padding != Padding::longest)
    input_error("bucketing", "needs padding=longest (padded to max_length, every batch has the same length)");
  if (split_.input_ids.size() != split_.labels.size())
    input_error("tokenized split", "input_ids and labels differ in length");
}

BatchLoader::~BatchLoader() { stop_producer(); }

std::size_t BatchLoader::split_size() const { return split_.size(); }

int64_t BatchLoader::batches_per_epoch() const {
  const int64_t n = static_cast<int64_t>(split_.size());
  const int64_t b = opt_.batch_size, w = opt_.world_size;
  if (opt_.drop_last) return n / (w * b);          // full batches on every rank
  const int64_t r = opt_.rank;
  const int64_t per_rank = opt_.even_shards ? (n + w - 1) / w  // padded as DistributedSampler does
                                            : (n - r + w - 1) / w;  // indices r, r+w, ... < n
  return (per_rank + b - 1) / b;
}

void BatchLoader::start_epoch(int64_t epoch) {
  stop_producer();
  epoch_started_ = true;

  const std::size_t n = split_.size();
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  if (opt_.shuffle) {
    // seed + epoch: a new order each epoch, the same on every rank.
    std::mt19937_64 rng(opt_.seed + static_cast<uint64_t>(epoch));
    portable_shuffle(order, rng);
  }
  const std::size_t w = static_cast<std::size_t>(opt_.world_size);
  const std::size_t b = static_cast<std::size_t>(opt_.batch_size);
  if (opt_.drop_last) {
    order.resize(n / (w * b) * (w * b));
  } else if (opt_.even_shards && n > 0 && n % w != 0) {
    // Every rank must run the same number of steps (collectives would hang
    // otherwise): wrap around to a multiple of world_size, as PyTorch's
    // DistributedSampler does.
    const std::size_t total = (n + w - 1) / w * w;
    for (std::size_t i = n; i < total; ++i) order.push_back(order[i - n]);
  }
  std::vector<int64_t> mine;
  for (std::size_t i = static_cast<std::size_t>(opt_.rank); i < order.size(); i += w)
    mine.push_back(order[i]);

  if (opt_.bucketing) {
    // Sort each window by length, longest first (stable: ties keep the
    // shuffled order); the batches cut from it below then pad little.
    const std::size_t window = b * kBucketWindowBatches;
    auto longer = [&](int64_t x, int64_t y) {
      return split_.input_ids[static_cast<std::size_t>(x)].size() > split_.input_ids[static_cast<std::size_t>(y)].size();
    };
    for (std::size_t i = 0; i < mine.size(); i += window)
      std::stable_sort(mine.begin() + static_cast<std::ptrdiff_t>(i),
                       mine.begin() + static_cast<std::ptrdiff_t>(std::min(mine.size(), i + window)), longer);
  }
  epoch_batches_.clear();
  for (std::size_t i = 0; i < mine.size(); i += b)
    epoch_batches_.emplace_back(mine.begin() + i, mine.begin() + std::min(mine.size(), i + b));
  if (opt_.bucketing && opt_.shuffle) {
    // Long and short batches interleave at random: another stream of the
    // same seed, so the batches' order is random each epoch yet reproducible.
    std::mt19937_64 rng(splitmix64(opt_.seed + static_cast<uint64_t>(epoch)));
    portable_shuffle(epoch_batches_, rng);
  }

  cursor_ = 0;
  ready_.clear();
  produced_ = consumed_ = 0;
  stop_ = false;
  error_ = nullptr;
  if (opt_.prefetch > 0 && !epoch_batches_.empty())
    producer_ = std::thread(&BatchLoader::producer_loop, this);
}

std::optional<Batch> BatchLoader::next() {
  if (!epoch_started_) start_epoch(0);
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&] {
    wait_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (opt_.prefetch == 0) {
    // Synchronous: building the batch is the consumer's wait.
    if (cursor_ >= epoch_batches_.size()) return std::nullopt;
    Batch batch = make_batch(epoch_batches_[cursor_++]);
    waited();
    return batch;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (consumed_ >= epoch_batches_.size()) return std::nullopt;
  cv_.wait(lock, [&] { return !ready_.empty() || error_ != nullptr; });
  if (ready_.empty()) {  // the producer failed; it has stopped
    std::exception_ptr e = error_;
    lock.unlock();
    waited();
    std::rethrow_exception(e);
  }
  Batch batch = std::move(ready_.front());
  ready_.pop_front();
  ++consumed_;
  lock.unlock();
  cv_.notify_all();  // room in the queue
  waited();
  return batch;
}

void BatchLoader::producer_loop() {
  try {
    for (;;) {
      std::size_t index;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          return stop_ || ready_.size() < static_cast<std::size_t>(opt_.prefetch);
        });
        if (stop_ || produced_ >= epoch_batches_.size()) return;
        index = produced_;
      }
      // Built outside the lock so the consumer can take ready batches meanwhile.
      Batch batch = make_batch(epoch_batches_[index]);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        ready_.push_back(std::move(batch));
        ++produced_;
      }
      cv_.notify_all();
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    cv_.notify_all();
  }
}

void BatchLoader::stop_producer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (producer_.joinable()) producer_.join();
}

Batch BatchLoader::make_batch(const std::vector<int64_t>& rows) const {
  const int64_t B = static_cast<int64_t>(rows.size());
  // T: max_length (the reference pads everything to 512), or the longest row
  // of this batch; rows longer than max_length are cut (tokenize with the same
  // max_length so that their [SEP] is kept).
  int64_t T = opt_.max_length;
  if (opt_.padding == Padding::longest) {
    int64_t longest = 1;
    for (int64_t r : rows) longest = std::max<int64_t>(longest, split_.input_ids[r].size());
    T = std::min<int64_t>(T, longest);
  }
  Batch batch;
  const auto longs = torch::TensorOptions().dtype(torch::kLong).pinned_memory(opt_.pin_memory);
  batch.input_ids = torch::full({B, T}, static_cast<int64_t>(opt_.pad_id), longs);
  batch.attention_mask = torch::zeros({B, T}, longs);
  batch.labels = torch::empty({B}, longs);
  int64_t* ids = batch.input_ids.data_ptr<int64_t>();
  int64_t* mask = batch.attention_mask.data_ptr<int64_t>();
  int64_t* labels = batch.labels.data_ptr<int64_t>();
  if (opt_.padding == Padding::longest) batch.row_tokens.reserve(rows.size());
  for (int64_t i = 0; i < B; ++i) {
    const std::vector<int32_t>& row = split_.input_ids[rows[i]];
    const int64_t len = std::min<int64_t>(T, row.size());
    std::copy(row.begin(), row.begin() + len, ids + i * T);
    std::fill(mask + i * T, mask + i * T + len, 1);
    labels[i] = split_.labels[rows[i]];
    batch.real_tokens += len;
    if (opt_.padding == Padding::longest) batch.row_tokens.push_back(len);
  }
  return batch;
}

}  // namespace ftb
