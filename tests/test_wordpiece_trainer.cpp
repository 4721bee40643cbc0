// WordPiece trainer (presets that build their own vocabulary): merges learned
// as HF's WordPieceTrainer learns them, specials first, deterministic, sized
// by the auto rule, and what the greedy tokenizer then makes of words.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/text/text_data.h"
#include "core/text/tokenizer.h"
#include "core/text/wordpiece_trainer.h"
#include "tests/data_fixtures.h"
#include "tests/skip.h"

using ftb::WordPieceTokenizer;

namespace {

const std::vector<std::string> kSpecials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

const std::vector<std::string> kCorpus = {
    "This movie was great, truly great!",
    "I did not like this movie at all.<br /><br />Not great.",
    "Café crème: a naïve plot, but the acting... wow!!",
    "我喜欢 this film; 10/10 would watch again",
    "An unwatchable, unbearable, unforgivable mess.",
    "The actors were acting; the acting was acted.",
};

std::vector<std::string> repeated(const std::string& text, int n) { return std::vector<std::string>(n, text); }

// Review-like text where stems and affixes recur in many words.
std::vector<std::string> affix_corpus() {
  std::vector<std::string> corpus;
  for (int i = 0; i < 40; ++i) corpus.push_back("the movie was good and the acting was good");
  for (const char* stem : {"watch", "play", "act", "direct", "film", "cast", "view", "paint", "work", "walk"})
    for (const char* affix : {"", "ing", "ed", "er", "s", "able"}) {
      const std::string word = std::string(stem) + affix;
      // The bare word 3 times, each prefixed form once: the stems and
      // affixes recur, the prefixed words themselves are rare.
      for (int i = 0; i < 3; ++i) corpus.push_back(word);
      corpus.push_back("un" + word + " re" + word);
    }
  return corpus;
}

std::vector<std::string> pieces(const WordPieceTokenizer& tok, const std::string& text) {
  std::vector<std::string> out;
  for (const auto id : tok.encode_words(text)) out.push_back(tok.tokens()[static_cast<std::size_t>(id)]);
  return out;
}

}  // namespace

TEST_CASE("wordpiece trainer: merges by pair count, ties to the smaller pair, ## continuations") {
  // The Hugging Face course's BPE example, with WordPiece's ## prefixes:
  // ##u·##g 20, ##u·##n 16, h·##ug 15, p·##un 12, then p·##ug and hug·##s
  // tie at 5 (p has the smaller id), then b·##un 4.
  std::vector<std::string> corpus;
  for (const auto& [word, n] : std::vector<std::pair<std::string, int>>{
           {"hug", 10}, {"pug", 5}, {"pun", 12}, {"bun", 4}, {"hugs", 5}})
    for (int i = 0; i < n; ++i) corpus.push_back(word);
  const auto v = ftb::train_wordpiece(corpus, {/*vocab_size=*/1000, /*min_frequency=*/2});
  std::vector<std::string> expected = kSpecials;
  for (const char* c : {"b", "g", "h", "n", "p", "s", "u"}) expected.push_back(c);
  for (const char* c : {"##b", "##g", "##h", "##n", "##p", "##s", "##u"}) expected.push_back(c);
  for (const char* m : {"##ug", "##un", "hug", "pun", "pug", "hugs", "bun"}) expected.push_back(m);
  CHECK(v.tokens == expected);
  CHECK(v.texts == 36);
  CHECK(v.words == 36);
  CHECK(v.distinct_words == 5);
  CHECK(v.alphabet == 7);
  CHECK(v.merges == 7);

  // min_frequency: nothing seen fewer times is merged (b·##un has 4).
  const auto strict = ftb::train_wordpiece(corpus, {1000, /*min_frequency=*/5});
  CHECK(std::find(strict.tokens.begin(), strict.tokens.end(), "bun") == strict.tokens.end());
  CHECK(strict.tokens.back() == "hugs");
}

TEST_CASE("wordpiece trainer: a pair twice in a row in one word moves its neighbours' counts right") {
  // "cabab" x3 = c ##a ##b ##a ##b: ##a·##b 6 -> "##ab", leaving c ##ab ##ab:
  // c·##ab 3 and ##ab·##ab 3 (and no stale ##b·##a or ##ab·##a); c·##ab has
  // the smaller ids -> "cab"; then cab·##ab -> "cabab"; then nothing.
  const auto v = ftb::train_wordpiece(repeated("cabab", 3), {100, 2});
  std::vector<std::string> expected = kSpecials;
  for (const char* t : {"a", "b", "c", "##a", "##b", "##c", "##ab", "cab", "cabab"}) expected.push_back(t);
  CHECK(v.tokens == expected);
  const auto tok = WordPieceTokenizer::from_tokens(v.tokens, "built");
  CHECK(pieces(tok, "cabab") == std::vector<std::string>{"cabab"});
  CHECK(pieces(tok, "cababab") == std::vector<std::string>{"cabab", "##ab"});
}

TEST_CASE("wordpiece trainer: specials first, normalised like the tokenizer, no duplicates") {
  const auto v = ftb::train_wordpiece(kCorpus, {400, 2});
  REQUIRE(v.tokens.size() >= 5);
  CHECK(std::vector<std::string>(v.tokens.begin(), v.tokens.begin() + 5) == kSpecials);
  const std::set<std::string> unique(v.tokens.begin(), v.tokens.end());
  CHECK(unique.size() == v.tokens.size());
  CHECK(unique.count("e") == 1);
  CHECK(unique.count("##e") == 1);
  CHECK(unique.count("T") == 0);
  CHECK(unique.count("\xC3\xA9") == 0);  // é
  CHECK(unique.count("我") == 1);
  CHECK(unique.count("great") == 1);  // 4 times: merged whole
  CHECK(unique.count("great,") == 0);
  CHECK(unique.count("acting") == 1);
}

TEST_CASE("wordpiece trainer: deterministic, and a smaller size is a prefix of a larger one") {
  const auto corpus = affix_corpus();
  CHECK(ftb::train_wordpiece(corpus, {300, 2}).tokens == ftb::train_wordpiece(corpus, {300, 2}).tokens);
  auto shuffled = corpus;
  std::reverse(shuffled.begin(), shuffled.end());  // the corpus order does not matter, only its counts
  CHECK(ftb::train_wordpiece(shuffled, {300, 2}).tokens == ftb::train_wordpiece(corpus, {300, 2}).tokens);
  const auto big = ftb::train_wordpiece(corpus, {300, 2}).tokens;
  const auto small = ftb::train_wordpiece(corpus, {150, 2}).tokens;
  REQUIRE(small.size() == 150);
  CHECK(std::equal(small.begin(), small.end(), big.begin()));
}

TEST_CASE("wordpiece trainer: frequent words whole, rare words as learned sub-words, no [UNK]") {
  const auto v = ftb::train_wordpiece(affix_corpus(), {150, 2});
  REQUIRE(v.tokens.size() == 150);
  const auto tok = WordPieceTokenizer::from_tokens(v.tokens, "built");
  for (const char* word : {"the", "movie", "good", "acting", "watch"}) {
    INFO(std::string(word));
    CHECK(pieces(tok, word) == std::vector<std::string>{word});
  }
  // Seen once, or never (the last), made of stems and affixes seen
  // often: a few learned pieces, not one per character.
  for (const char* word : {"rewatched", "unplayable", "unpainted", "castwork"}) {
    const auto p = pieces(tok, word);
    INFO(std::string(word) << " -> " << p.size() << " pieces");
    CHECK(p.size() >= 2);
    CHECK(p.size() <= 3);
    for (const auto& piece : p) CHECK(piece.size() - (piece.rfind("##", 0) == 0 ? 2 : 0) >= 2);
  }
  // Any word spelled with characters of the corpus has no [UNK], whatever the size.
  for (std::size_t size : {std::size_t(5 + 2 * v.alphabet), std::size_t(60), std::size_t(150)}) {
    const auto small = WordPieceTokenizer::from_tokens(ftb::train_wordpiece(affix_corpus(), {size, 2}).tokens);
    for (const char* text : {"the movie", "tttt", "unwatchable rewalked", "dogma"}) {
      const auto ids = small.encode_words(text);
      INFO("size " << size << ": " << std::string(text));
      CHECK(std::find(ids.begin(), ids.end(), small.unk_id()) == ids.end());
    }
  }
  // A character the corpus never had is [UNK] (a word with it is one [UNK]).
  CHECK(tok.encode_words("qux") == std::vector<int32_t>{tok.unk_id()});
}

TEST_CASE("wordpiece trainer: auto size merges until every word seen twice is whole, capped") {
  const auto corpus = affix_corpus();
  const auto v = ftb::train_wordpiece(corpus);  // vocab_size 0 = auto
  CHECK(v.target_size == ftb::kAutoVocabCap);
  CHECK(v.exhausted);
  CHECK(v.tokens.size() < ftb::kAutoVocabCap);
  const auto tok = WordPieceTokenizer::from_tokens(v.tokens, "built");
  // Seen 3 times or more: one token each; seen once (prefixed forms): pieces.
  for (const char* word : {"movie", "watching", "castable", "walks"}) CHECK(pieces(tok, word).size() == 1);
  CHECK(pieces(tok, "unwatching").size() == 2);
  // The same as asking for a size above where it stops by itself.
  CHECK(ftb::train_wordpiece(corpus, {5000, 2}).tokens == v.tokens);
  // Capped: the cap is a size like any other.
  const auto capped = ftb::train_wordpiece(corpus, {60, 2});
  CHECK(capped.tokens.size() == 60);
  CHECK(!capped.exhausted);
  // Two words, many characters: specials and characters, nothing to merge.
  const auto tiny = ftb::train_wordpiece({"abcdefgh ijklmnop"});
  CHECK(tiny.distinct_words == 2);
  CHECK(tiny.tokens.size() == 5 + 2 * 16);
  // Empty corpus: the specials.
  CHECK(ftb::train_wordpiece({}).tokens == kSpecials);
}

TEST_CASE("wordpiece trainer: a given size too small for the characters is an error naming vocab_size") {
  try {
    ftb::train_wordpiece(kCorpus, {10, 2});
    FAIL("expected an InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("vocab_size: ", 0) == 0);
  }
}

TEST_CASE("wordpiece trainer: on real reviews of the shared archive (skipped when absent)") {
  // Its figures are the development copy's (the official archive's would differ).
  const std::string path = ftb_test::development_archive();
  if (!std::filesystem::exists(path))
    FTB_SKIP_CASE(path << " is absent: the project's development copy of IMDB; a clone without it runs the "
                          "official archive's case (test_imdb_reader; tools/download_imdb.py, -DFTB_DATA_DIR=DIR)");
  const auto splits = ftb::split_reference(ftb::read_examples(path), /*seed=*/123, /*limit=*/4000);
  std::vector<std::string> train, held_out;
  for (const auto& e : splits.train) train.push_back(e.text);
  for (const auto& e : splits.test) held_out.push_back(e.text);
  const auto v = ftb::train_wordpiece(train);
  CHECK(v.tokens.size() == ftb::kAutoVocabCap);  // 2,800 reviews already reach the cap
  const auto tok = WordPieceTokenizer::from_tokens(v.tokens, "trained");
  for (const char* word : {"the", "movie", "film", "great", "bad", "acting", "wasn", "characters"}) {
    INFO(std::string(word));
    CHECK(pieces(tok, word).size() == 1);
  }
  // Reviews it never saw: about one piece per word, and [UNK] only for a
  // word with a character the training reviews never had.
  const std::set<std::string> alphabet(v.tokens.begin() + 5, v.tokens.begin() + 5 + static_cast<std::ptrdiff_t>(v.alphabet));
  std::size_t words = 0, n_pieces = 0, unknown = 0, unseen_char_words = 0;
  for (const auto& text : held_out)
    for (const auto& word : tok.basic_tokenize(text)) {
      const auto ids = tok.encode_words(word);
      ++words;
      n_pieces += ids.size();
      if (std::find(ids.begin(), ids.end(), tok.unk_id()) == ids.end()) continue;
      ++unknown;
      bool seen = true;
      for (std::size_t i = 0; i < word.size();) {
        const std::size_t n = (word[i] & 0x80) == 0 ? 1 : (word[i] & 0xE0) == 0xC0 ? 2 : (word[i] & 0xF0) == 0xE0 ? 3 : 4;
        seen = seen && alphabet.count(word.substr(i, n)) == 1;
        i += n;
      }
      unseen_char_words += !seen;
    }
  CHECK(static_cast<double>(n_pieces) / static_cast<double>(words) < 1.25);
  CHECK(unknown == unseen_char_words);
  CHECK(static_cast<double>(unknown) / static_cast<double>(words) < 1e-3);
  // A rare word comes out as learned sub-words, not letters.
  const auto p = pieces(tok, "unwatchably");
  INFO(p.size() << " pieces");
  CHECK(p.size() <= 4);
  for (const auto& piece : p) CHECK(piece.size() - (piece.rfind("##", 0) == 0 ? 2 : 0) >= 2);
}
