// BERT WordPiece tokenizer, compatible with Hugging Face's BertTokenizer /
// `tokenizers` BertWordPieceTokenizer: by default `distilbert-base-uncased`'s
// settings (do_lower_case, strip_accents, tokenize_chinese_chars, max 100
// chars/word); a tokenizer.json states its own (TokenizerOptions).
//
// Pipeline (as HF's BasicTokenizer + WordpieceTokenizer; each normalising
// step can be turned off by TokenizerOptions):
//   clean text (drop control chars / U+FFFD / NUL, whitespace -> ' ')
//   -> split CJK ideographs into their own words -> whitespace split
//   -> lower-case + NFD + drop combining marks -> split punctuation
//   -> WordPiece greedy longest match with "##" continuations
//   -> [CLS] ... [SEP], truncated to max_length.
// Unicode classes and normalisation come from utf8proc. Special tokens written
// in the text ("[SEP]", case-sensitive) stay whole, as in HF. Invalid UTF-8
// bytes are dropped, never an error. Where HF's Rust and Python versions
// disagree we follow the Rust one (see tokenizer.cpp). Encoding is const and
// allocation-light: one tokenizer may serve many threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ftb {

// BertNormalizer's settings, the special tokens and WordPiece's word limit.
// The defaults are distilbert-base-uncased's (what a bare vocab.txt gets);
// tokenizer.json states its own (core/text/tokenizer_json.h).
struct TokenizerOptions {
  bool clean_text = true;            // drop control characters and U+FFFD
  bool handle_chinese_chars = true;  // CJK ideographs are words of their own
  bool strip_accents = true;         // NFD, then drop combining marks (Mn)
  bool lowercase = true;
  std::string pad = "[PAD]", unk = "[UNK]", cls = "[CLS]", sep = "[SEP]";
  // Split out of the raw text whole before normalising ("[SEP]" in a review
  // is the [SEP] id). Those present in the vocabulary count; each must start
  // with an ASCII byte. Empty = pad, unk, cls, sep and "[MASK]".
  std::vector<std::string> specials;
  int max_input_chars_per_word = 100;  // longer words become unk
};

class WordPieceTokenizer {
 public:
  // One token per line, id = line number (HF vocab.txt). Throws InputError
  // naming the file when it cannot be read or lacks [PAD]/[UNK]/[CLS]/[SEP].
  static WordPieceTokenizer from_file(const std::string& vocab_path);
  // `where` names the source in error messages; id = index in `tokens`.
  static WordPieceTokenizer from_tokens(std::vector<std::string> tokens,
                                        const std::string& where = "vocabulary",
                                        TokenizerOptions options = {});

  // [CLS] wordpieces... [SEP], truncated so the result has at most
  // max_length ids (the [SEP] is kept, as HF's truncation=True does).
  std::vector<int32_t> encode(std::string_view text, int max_length = 512) const;
  // Wordpiece ids without special tokens and without truncation.
  std::vector<int32_t> encode_words(std::string_view text) const;
  // Basic tokenization only (clean, CJK, lower+strip accents, punctuation split).
  std::vector<std::string> basic_tokenize(std::string_view text) const;

  void save(const std::string& vocab_path) const;  // vocab.txt format

  // Id of `token` exactly as written in the vocabulary, or -1 when absent.
  int32_t token_id(std::string_view token) const;

  std::size_t vocab_size() const { return tokens_.size(); }
  const std::vector<std::string>& tokens() const { return tokens_; }
  int32_t pad_id() const { return pad_id_; }
  int32_t unk_id() const { return unk_id_; }
  int32_t cls_id() const { return cls_id_; }
  int32_t sep_id() const { return sep_id_; }
  const TokenizerOptions& options() const { return options_; }

 private:
  // Open-addressing hash table whose keys are views into tokens_, so WordPiece
  // can look up substrings of a word without building a std::string for each
  // (std::unordered_map<std::string> has no string_view lookup in C++17).
  struct PieceTable {
    // Hash, id and (for keys of up to 7 bytes, most of them) the key itself in
    // one 16-byte slot: a lookup costs one cache miss, not a second one in
    // tokens_ (the lookups dominate encode time). id -1 = empty slot.
    struct Slot {
      uint32_t hash;
      int32_t id;
      uint64_t packed;  // pack_key(key), or kLongKey: compare with tokens_
    };
    std::vector<Slot> slots;         // size a power of 2, at most half full
    std::size_t skip = 0;            // key = token bytes after this prefix
    std::size_t max_key_bytes = 0;   // longest key: bounds the greedy search
  };
  static void table_insert(PieceTable& table, const std::vector<std::string>& tokens,
                           int32_t id);
  // `hash` = hash_bytes(key), passed in because WordPiece gets every prefix's
  // hash from one pass over the word.
  int32_t table_find(const PieceTable& table, std::string_view key, uint32_t hash) const;

  // Runs the basic tokenizer over `text` and calls sink.word(bytes, n_chars) /
  // sink.special(id) in order; stops early when the sink returns false.
  // One pass over the text: normalises and splits it into words for `sink`
  // (BertNormalizer + BertPreTokenizer); scan_ascii and scan_code_point take
  // one character each and return false when the sink wants no more.
  template <class Sink>
  struct WordBuilder;
  template <class Sink>
  void scan(std::string_view text, Sink& sink) const;
  template <class Sink>
  bool scan_ascii(std::string_view text, std::size_t& i, WordBuilder<Sink>& out) const;
  template <class Sink>
  bool scan_code_point(int32_t cp, WordBuilder<Sink>& out) const;
  // Appends the WordPiece ids of one basic-tokenized word to `out`.
  void wordpiece(std::string_view word, int n_chars, std::vector<int32_t>& out) const;

  std::vector<std::string> tokens_;
  PieceTable word_starts_;  // every token, keyed by its bytes
  PieceTable suffixes_;     // "##x" tokens, keyed by "x"
  // Special tokens present in the vocabulary: the `tokenizers` library splits
  // these out of the raw text before normalising (so "[SEP]" in text is 102).
  std::vector<int32_t> special_ids_;
  bool special_first_byte_[128] = {};  // some special token starts with this byte
  TokenizerOptions options_;
  int32_t pad_id_ = 0, unk_id_ = 0, cls_id_ = 0, sep_id_ = 0;
};

// Vocabularies learned from a corpus: core/text/wordpiece_trainer.h.

}  // namespace ftb
