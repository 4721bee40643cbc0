// Vocabulary builder for the smoke preset: deterministic, specials first,
// coverage of every character (no [UNK] on its own corpus), size respected.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/text/errors.h"
#include "core/text/tokenizer.h"

using ftb::WordPieceTokenizer;

namespace {

const std::vector<std::string> kCorpus = {
    "This movie was great, truly great!",
    "I did not like this movie at all.<br /><br />Not great.",
    "Café crème: a naïve plot, but the acting... wow!!",
    "我喜欢 this film; 10/10 would watch again",
    "An unwatchable, unbearable, unforgivable mess.",
    "The actors were acting; the acting was acted.",
};

}  // namespace

TEST_CASE("vocab builder: specials first, then characters, then pieces") {
  const auto vocab = ftb::build_wordpiece_vocab(kCorpus, 400);
  REQUIRE(vocab.size() >= 5);
  CHECK(std::vector<std::string>(vocab.begin(), vocab.begin() + 5) ==
        std::vector<std::string>{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"});
  const std::set<std::string> unique(vocab.begin(), vocab.end());
  CHECK(unique.size() == vocab.size());
  // Normalised like the tokenizer: lower-case, no accents, punctuation alone.
  CHECK(unique.count("e") == 1);
  CHECK(unique.count("##e") == 1);
  CHECK(unique.count("T") == 0);
  CHECK(unique.count("\xC3\xA9") == 0);  // é
  CHECK(unique.count("movie") == 1);
  CHECK(unique.count("great") == 1);
  CHECK(unique.count("great,") == 0);
  CHECK(unique.count("我") == 1);
}

TEST_CASE("vocab builder: deterministic") {
  CHECK(ftb::build_wordpiece_vocab(kCorpus, 300) == ftb::build_wordpiece_vocab(kCorpus, 300));
  // A smaller size is a prefix of a larger one: the order is a ranking.
  const auto big = ftb::build_wordpiece_vocab(kCorpus, 300);
  const auto small = ftb::build_wordpiece_vocab(kCorpus, 150);
  REQUIRE(small.size() == 150);
  CHECK(std::equal(small.begin(), small.end(), big.begin()));
}

TEST_CASE("vocab builder: size respected and no [UNK] on its corpus") {
  // The smallest size that holds every character ("##c" entries counted in a
  // full build), a middle one and a roomy one.
  const auto all = ftb::build_wordpiece_vocab(kCorpus, 100000);
  const auto code_points = [](const std::string& s) {
    return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
  };
  const std::size_t n_chars = std::count_if(all.begin(), all.end(), [&](const std::string& t) {
    return t.rfind("##", 0) == 0 && code_points(t) == 3;
  });
  const std::size_t minimum = 5 + 2 * n_chars;
  for (std::size_t size : {minimum, minimum + 40, std::size_t(100000)}) {
    const auto vocab = ftb::build_wordpiece_vocab(kCorpus, size);
    CHECK(vocab.size() <= size);
    if (size < all.size()) CHECK(vocab.size() == size);
    const auto tok = WordPieceTokenizer::from_tokens(vocab, "built");
    for (const auto& text : kCorpus) {
      const auto ids = tok.encode_words(text);
      INFO("size " << size << ", text: " << text);
      CHECK(std::find(ids.begin(), ids.end(), tok.unk_id()) == ids.end());
    }
  }
  CHECK_THROWS_AS(ftb::build_wordpiece_vocab(kCorpus, minimum - 1), ftb::InputError);
  CHECK(all.size() < 100000);  // a small corpus stops when it runs out of pieces
}

TEST_CASE("vocab builder: too small for the characters is an error naming vocab_size") {
  try {
    ftb::build_wordpiece_vocab(kCorpus, 10);
    FAIL("expected an InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("vocab_size: ", 0) == 0);
  }
  CHECK(ftb::build_wordpiece_vocab({}, 5).size() == 5);
}
