// BERT WordPiece tokenizer, compatible with Hugging Face's BertTokenizer /
// `tokenizers` BertWordPieceTokenizer for `distilbert-base-uncased`
// (do_lower_case, strip_accents, tokenize_chinese_chars, max 100 chars/word).
//
// Pipeline (as HF's BasicTokenizer + WordpieceTokenizer):
//   clean text (drop control chars / U+FFFD / NUL, whitespace -> ' ')
//   -> split CJK ideographs into their own words -> whitespace split
//   -> lower-case + NFD + drop combining marks -> split punctuation
//   -> WordPiece greedy longest match with "##" continuations
//   -> [CLS] ... [SEP], truncated to max_length.
// Unicode classes and normalisation come from utf8proc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ftb {

class WordPieceTokenizer {
 public:
  // One token per line, id = line number (HF vocab.txt). Throws InputError
  // naming the file when it cannot be read or lacks [PAD]/[UNK]/[CLS]/[SEP].
  static WordPieceTokenizer from_file(const std::string& vocab_path);
  // `where` names the source in error messages.
  static WordPieceTokenizer from_tokens(std::vector<std::string> tokens,
                                        const std::string& where = "vocabulary");

  // [CLS] wordpieces... [SEP], truncated so the result has at most
  // max_length ids (the [SEP] is kept, as HF's truncation=True does).
  std::vector<int32_t> encode(std::string_view text, int max_length = 512) const;
  // Wordpiece ids without special tokens and without truncation.
  std::vector<int32_t> encode_words(std::string_view text) const;
  // Basic tokenization only (clean, CJK, lower+strip accents, punctuation split).
  std::vector<std::string> basic_tokenize(std::string_view text) const;

  void save(const std::string& vocab_path) const;  // vocab.txt format

  std::size_t vocab_size() const { return tokens_.size(); }
  const std::vector<std::string>& tokens() const { return tokens_; }
  int32_t pad_id() const { return pad_id_; }
  int32_t unk_id() const { return unk_id_; }
  int32_t cls_id() const { return cls_id_; }
  int32_t sep_id() const { return sep_id_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  int32_t pad_id_ = 0, unk_id_ = 0, cls_id_ = 0, sep_id_ = 0;
};

// Builds a WordPiece vocabulary from a corpus for the embedded default
// (smoke preset): the special tokens [PAD] [UNK] [CLS] [SEP] [MASK] first,
// then every single character seen (as itself and as "##c"), then whole words
// by frequency, then frequent "##" suffix pieces, until vocab_size entries.
// Deterministic: ties are broken by the token's bytes.
std::vector<std::string> build_wordpiece_vocab(const std::vector<std::string>& corpus,
                                               std::size_t vocab_size);

}  // namespace ftb
