// A WordPiece vocabulary learned from a corpus, for presets that train from
// scratch on their own text (smoke, with or without --data).
//
// The trainer is Hugging Face `tokenizers`' WordPieceTrainer, which is its BPE
// trainer with "##" continuation pieces: words are counted (after the
// tokenizer's own basic tokenization: lower-case, no accents, punctuation
// split), spelled as characters ("w", "##o", "##r", "##d"), and the most
// frequent adjacent pair, counted over the whole corpus, is merged into a new
// piece ("w" + "##o" -> "wo", "##o" + "##r" -> "##or") until the vocabulary has
// vocab_size entries or no pair occurs min_frequency times. Frequent words end
// up as single pieces, rare ones as a few learned sub-words. (The original
// WordPiece of Schuster & Nakajima scores a pair by the likelihood gain
// count(ab) / (count(a) count(b)); HF's trainer, and this one, use the count.)
//
// Layout: [PAD] [UNK] [CLS] [SEP] [MASK]; every character seen, sorted by its
// bytes; the same characters as "##c"; then the merges in the order learned.
// Every character is there in both forms, so the greedy longest-match
// tokenizer never gives [UNK] for a word made of seen characters. Ties between
// pairs of equal count go to the pair of smaller ids (as HF), so the result is
// a function of the corpus alone; a smaller vocab_size gives a prefix of a
// larger one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ftb {

// vocab_size 0 = auto: merge until no pair occurs min_frequency times, which
// leaves every word seen that often as one token (a word seen twice that is
// still in pieces has a pair seen twice), so the size follows the corpus;
// at most kAutoVocabCap entries (the specials and characters always fit). A
// small corpus stops by itself (the synthetic smoke corpus: 413 distinct
// words, 1,075 entries); the 17k-review IMDB training split (65k distinct
// words) reaches the cap, at 1.12 pieces per word.
constexpr std::size_t kAutoVocabCap = 8000;

struct WordPieceTrainerOptions {
  std::size_t vocab_size = 0;   // 0 = auto (see kAutoVocabCap); else stop at this size
  uint64_t min_frequency = 2;   // a pair seen once is not worth a piece (HF BertWordPieceTokenizer's default)
};

struct TrainedVocab {
  std::vector<std::string> tokens;  // id = index
  // What it was learned from, for the report.
  std::size_t texts = 0;           // corpus entries
  std::size_t words = 0;           // basic-tokenized words (specials and >100-char words excluded)
  std::size_t distinct_words = 0;
  std::size_t alphabet = 0;        // distinct characters
  std::size_t merges = 0;          // learned pieces (tokens after specials and characters)
  std::size_t target_size = 0;     // vocab_size asked for, or the auto cap
  bool exhausted = false;          // stopped before target_size: no pair left min_frequency times
  uint64_t min_frequency = 0;      // as trained with
};

// Throws InputError naming vocab_size when a given size cannot hold the
// specials and both forms of every character.
TrainedVocab train_wordpiece(const std::vector<std::string>& corpus, const WordPieceTrainerOptions& options = {});

}  // namespace ftb
