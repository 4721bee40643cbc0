// WordPiece training as HF tokenizers' BpeTrainer does it (see the header):
// word counts, then merges driven by a max-heap of pair counts with lazy
// deletion and counts updated incrementally, only in the words that hold the
// merged pair. Cost: one pass of basic tokenization over the corpus, then per
// merge work proportional to the occurrences of that pair, not to the corpus.
#include "core/text/wordpiece_trainer.h"

#include <algorithm>
#include <queue>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include "core/base/errors.h"
#include "core/text/tokenizer.h"

namespace ftb {
namespace {

constexpr std::size_t kMaxWordChars = 100;  // longer words are [UNK] in the tokenizer anyway

std::size_t utf8_char_bytes(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Characters of a word as byte ranges (the tokenizer's output is valid UTF-8).
std::vector<std::string_view> chars_of(std::string_view word) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t n = std::min(utf8_char_bytes(static_cast<unsigned char>(word[i])), word.size() - i);
    out.push_back(word.substr(i, n));
    i += n;
  }
  return out;
}

// Basic-tokenized word counts, sorted by the word's bytes. Counting is half
// of the training time on real reviews, so it runs on every core: one map per
// thread over a contiguous slice, merged afterwards (counts are sums, so the
// result does not depend on the split).
std::vector<std::pair<std::string, int64_t>> count_words(const std::vector<std::string>& corpus,
                                                        const WordPieceTokenizer& basic) {
  using Counts = std::unordered_map<std::string, int64_t>;
  const std::size_t n_threads =
      std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), corpus.size() / 256));
  std::vector<Counts> counts(n_threads);
  auto count_slice = [&](std::size_t t) {
    const std::size_t from = corpus.size() * t / n_threads, to = corpus.size() * (t + 1) / n_threads;
    for (std::size_t i = from; i < to; ++i)
      for (auto& word : basic.basic_tokenize(corpus[i])) {
        if (basic.token_id(word) >= 0) continue;  // a special written in the text
        ++counts[t][std::move(word)];
      }
  };
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < n_threads; ++t) workers.emplace_back(count_slice, t);
  count_slice(0);
  for (auto& w : workers) w.join();
  for (std::size_t t = 1; t < n_threads; ++t)
    for (auto& [word, n] : counts[t]) counts[0][word] += n;
  std::vector<std::pair<std::string, int64_t>> sorted(counts[0].begin(), counts[0].end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

using PairKey = uint64_t;  // (left id << 32) | right id
PairKey pair_key(int32_t a, int32_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b); }
int32_t left_of(PairKey k) { return static_cast<int32_t>(k >> 32); }
int32_t right_of(PairKey k) { return static_cast<int32_t>(k & 0xffffffffu); }

struct QueueEntry {
  int64_t count;
  PairKey pair;
};
// std::priority_queue pops the greatest: the highest count, then the smaller
// pair (HF's Merge ordering), so ties never depend on hashing.
struct LowerPriority {
  bool operator()(const QueueEntry& x, const QueueEntry& y) const {
    return x.count != y.count ? x.count < y.count : x.pair > y.pair;
  }
};

struct Word {
  std::vector<int32_t> symbols;
  int64_t count;
};

class Merger {
 public:
  Merger(std::vector<Word> words, std::vector<std::string> tokens) : words_(std::move(words)), tokens_(std::move(tokens)) {
    for (std::size_t i = 0; i < tokens_.size(); ++i) ids_.emplace(tokens_[i], static_cast<int32_t>(i));
    for (std::size_t w = 0; w < words_.size(); ++w) {
      const auto& s = words_[w].symbols;
      for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        const PairKey k = pair_key(s[i], s[i + 1]);
        counts_[k] += words_[w].count;
        where_[k].push_back(static_cast<uint32_t>(w));
      }
    }
    for (const auto& [k, n] : counts_) queue_.push({n, k});
  }

  // Merges until `size` tokens or no pair reaches min_frequency.
  std::vector<std::string> run(std::size_t size, uint64_t min_frequency) {
    while (tokens_.size() < size && !queue_.empty()) {
      const QueueEntry top = queue_.top();
      queue_.pop();
      const auto it = counts_.find(top.pair);
      const int64_t now = it == counts_.end() ? 0 : it->second;
      if (now != top.count) {  // stale: the count fell since it was pushed
        if (now > 0) queue_.push({now, top.pair});
        continue;
      }
      if (static_cast<uint64_t>(now) < std::max<uint64_t>(min_frequency, 1)) break;
      merge(top.pair);
    }
    return std::move(tokens_);
  }

 private:
  void add(PairKey k, int64_t delta, uint32_t word) {
    counts_[k] += delta;
    if (delta > 0) {
      where_[k].push_back(word);
      touched_.push_back(k);
    }
  }

  void merge(PairKey pair) {
    const int32_t a = left_of(pair), b = right_of(pair);
    const std::string& right = tokens_[static_cast<std::size_t>(b)];
    std::string merged = tokens_[static_cast<std::size_t>(a)] + (right.rfind("##", 0) == 0 ? right.substr(2) : right);
    // The same string may come from another pair ("ab"+"##c", "a"+"##bc"):
    // one id for both, as HF.
    auto [slot, added] = ids_.emplace(merged, static_cast<int32_t>(tokens_.size()));
    if (added) tokens_.push_back(std::move(merged));
    const int32_t n = slot->second;

    auto occurrences = std::move(where_[pair]);
    where_.erase(pair);
    std::sort(occurrences.begin(), occurrences.end());
    occurrences.erase(std::unique(occurrences.begin(), occurrences.end()), occurrences.end());
    touched_.clear();
    std::vector<int32_t> out;
    for (const uint32_t w : occurrences) {
      auto& s = words_[w].symbols;
      const int64_t c = words_[w].count;
      out.clear();
      // Each a·b becomes n; the neighbours' pairs move with it:
      // x·a -> x·n and b·y -> n·y (an x that was itself just merged is
      // out.back(), so "abab" yields n·n and not a stale n·a).
      for (std::size_t i = 0; i < s.size();) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
          if (!out.empty()) {
            add(pair_key(out.back(), a), -c, w);
            add(pair_key(out.back(), n), c, w);
          }
          add(pair, -c, w);
          if (i + 2 < s.size()) {
            add(pair_key(b, s[i + 2]), -c, w);
            add(pair_key(n, s[i + 2]), c, w);
          }
          out.push_back(n);
          i += 2;
        } else {
          out.push_back(s[i]);
          ++i;
        }
      }
      s.swap(out);
    }
    counts_.erase(pair);
    // Pairs whose count rose get a fresh queue entry; those that fell are
    // corrected lazily when popped.
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    for (const PairKey k : touched_)
      if (const auto it = counts_.find(k); it != counts_.end() && it->second > 0) queue_.push({it->second, k});
  }

  std::vector<Word> words_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  std::unordered_map<PairKey, int64_t> counts_;
  std::unordered_map<PairKey, std::vector<uint32_t>> where_;  // words holding the pair (may hold stale ones)
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, LowerPriority> queue_;
  std::vector<PairKey> touched_;
};

}  // namespace

TrainedVocab train_wordpiece(const std::vector<std::string>& corpus, const WordPieceTrainerOptions& options) {
  const std::vector<std::string> specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  // A specials-only tokenizer gives the same basic tokenization as the final one.
  const auto basic = WordPieceTokenizer::from_tokens(specials, "vocab builder");

  TrainedVocab out;
  out.texts = corpus.size();
  out.min_frequency = options.min_frequency;
  // Sorted by bytes: word order, and so everything after, is independent of
  // hashing and of how the counting was split across threads.
  auto sorted = count_words(corpus, basic);

  std::vector<std::string> alphabet;
  std::vector<std::vector<std::string_view>> spelled;
  spelled.reserve(sorted.size());
  for (const auto& [word, count] : sorted) {
    spelled.push_back(chars_of(word));
    if (spelled.back().size() > kMaxWordChars) continue;
    out.words += static_cast<std::size_t>(count);
    ++out.distinct_words;
    for (const auto c : spelled.back()) alphabet.emplace_back(c);
  }
  std::sort(alphabet.begin(), alphabet.end());
  alphabet.erase(std::unique(alphabet.begin(), alphabet.end()), alphabet.end());
  out.alphabet = alphabet.size();

  const std::size_t needed = specials.size() + 2 * alphabet.size();
  if (options.vocab_size == 0) {
    out.target_size = std::max(needed, kAutoVocabCap);
  } else {
    if (options.vocab_size < needed)
      input_error("vocab_size", std::to_string(options.vocab_size) + " is too small for this corpus: " +
                                    "the specials and its " + std::to_string(alphabet.size()) +
                                    " distinct characters (alone and as ##c) need " + std::to_string(needed));
    out.target_size = options.vocab_size;
  }

  std::vector<std::string> tokens = specials;
  for (const auto& c : alphabet) tokens.push_back(c);
  for (const auto& c : alphabet) tokens.push_back("##" + c);
  auto char_id = [&](std::string_view c, bool first) {
    const auto at = std::lower_bound(alphabet.begin(), alphabet.end(), c) - alphabet.begin();
    return static_cast<int32_t>(specials.size() + (first ? 0 : alphabet.size()) + static_cast<std::size_t>(at));
  };
  std::vector<Word> words;
  words.reserve(out.distinct_words);
  for (std::size_t w = 0; w < sorted.size(); ++w) {
    if (spelled[w].size() > kMaxWordChars) continue;
    Word word{{}, sorted[w].second};
    for (std::size_t i = 0; i < spelled[w].size(); ++i) word.symbols.push_back(char_id(spelled[w][i], i == 0));
    words.push_back(std::move(word));
  }
  spelled.clear();
  sorted.clear();

  out.tokens = Merger(std::move(words), std::move(tokens)).run(out.target_size, options.min_frequency);
  out.merges = out.tokens.size() - needed;
  out.exhausted = out.tokens.size() < out.target_size;
  return out;
}

}  // namespace ftb
