// A WordPiece vocabulary from a corpus, for presets that train from scratch
// on their own text (smoke). Not HF's WordPiece trainer (no merge scores): a
// frequency count that guarantees coverage, which is all a tiny synthetic
// corpus needs.
//
// Layout: specials; every character seen, as itself and as "##c" (so any word
// of the corpus tokenizes without [UNK]: it can always fall back to single
// characters); whole words by frequency; "##" suffixes by frequency. Words and
// characters are those of the tokenizer's own basic tokenization (lower-case,
// no accents, punctuation split), so the vocabulary matches what encode sees.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/text/errors.h"
#include "core/text/tokenizer.h"

namespace ftb {
namespace {

constexpr std::size_t kMaxSuffixChars = 12;  // longer suffixes never repeat enough
constexpr int kMaxWordChars = 100;           // longer words are [UNK] anyway

std::size_t utf8_char_bytes(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Most frequent first, ties by the token's bytes: the result never depends
// on hash order or on the platform.
std::vector<std::string> by_frequency(const std::map<std::string, std::size_t>& counts) {
  std::vector<std::pair<std::string, std::size_t>> items(counts.begin(), counts.end());
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  out.reserve(items.size());
  for (auto& item : items) out.push_back(std::move(item.first));
  return out;
}

}  // namespace

std::vector<std::string> build_wordpiece_vocab(const std::vector<std::string>& corpus,
                                               std::size_t vocab_size) {
  const std::vector<std::string> specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  // A specials-only tokenizer gives the same basic tokenization as the final one.
  const auto basic = WordPieceTokenizer::from_tokens(specials, "vocab builder");

  std::map<std::string, std::size_t> words, chars, suffixes;
  for (const auto& text : corpus) {
    for (auto& word : basic.basic_tokenize(text)) {
      if (std::find(specials.begin(), specials.end(), word) != specials.end()) continue;
      std::vector<std::size_t> starts;  // byte offset of each character
      for (std::size_t i = 0; i < word.size(); i += utf8_char_bytes(word[i])) starts.push_back(i);
      if (starts.size() > static_cast<std::size_t>(kMaxWordChars)) continue;
      for (std::size_t k = 0; k < starts.size(); ++k) {
        const std::size_t end = k + 1 < starts.size() ? starts[k + 1] : word.size();
        ++chars[word.substr(starts[k], end - starts[k])];
      }
      // Proper suffixes of 2..kMaxSuffixChars characters (single ones are in
      // already as "##c").
      for (std::size_t k = 1; k + 1 < starts.size(); ++k)
        if (starts.size() - k <= kMaxSuffixChars) ++suffixes["##" + word.substr(starts[k])];
      if (starts.size() > 1) ++words[std::move(word)];
    }
  }

  const std::size_t needed = specials.size() + 2 * chars.size();
  if (vocab_size < needed)
    input_error("vocab_size", std::to_string(vocab_size) + " is too small for this corpus: " +
                                  "the specials and its " + std::to_string(chars.size()) +
                                  " distinct characters need " + std::to_string(needed));

  std::vector<std::string> vocab = specials;
  const auto ordered_chars = by_frequency(chars);
  for (const auto& c : ordered_chars) vocab.push_back(c);
  for (const auto& c : ordered_chars) vocab.push_back("##" + c);
  for (auto* pool : {&words, &suffixes})
    for (auto& token : by_frequency(*pool)) {
      if (vocab.size() >= vocab_size) return vocab;
      vocab.push_back(std::move(token));
    }
  return vocab;  // a small corpus may yield fewer than vocab_size tokens
}

}  // namespace ftb
