// WordPiece tokenizer: rules checked one by one on a tiny vocabulary, then the
// golden file written by tools/golden_tokenizer.py (Hugging Face `tokenizers`
// on hard cases and real IMDB reviews) with the real bert-base-uncased
// vocabulary, which is committed under fixtures/ so this test always runs.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/text/tokenizer.h"
#include "tests/skip.h"

using ftb::WordPieceTokenizer;
using Words = std::vector<std::string>;
using Ids = std::vector<int32_t>;

namespace {

const char* const kBertVocab = FTB_FIXTURES_DIR "/bert-base-uncased-vocab.txt";
const char* const kGolden = FTB_FIXTURES_DIR "/tokenizer_golden.jsonl";

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4, then the rest in order.
WordPieceTokenizer tiny() {
  return WordPieceTokenizer::from_tokens({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",  //
                                          "un", "##aff", "##able", "aff", "!", "the",    //
                                          "a", "##a", "cafe", "我", "x", "##x"},
                                         "tiny");
}

// ---- a minimal reader for the golden file's known shape -------------------
// Lines are {"name": "...", "text": "...", "input_ids": [...]} written by
// json.dumps(ensure_ascii=True): strings hold only ASCII and \-escapes.

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Value of string field `key` in `line`; fails the test when malformed.
std::string json_string(const std::string& line, const std::string& key) {
  std::size_t i = line.find("\"" + key + "\": \"");
  REQUIRE_MESSAGE(i != std::string::npos, "golden line lacks " << key);
  i += key.size() + 5;
  std::string out;
  while (i < line.size() && line[i] != '"') {
    if (line[i] != '\\') {
      out += line[i++];
      continue;
    }
    const char e = line[i + 1];
    i += 2;
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        uint32_t cp = std::stoul(line.substr(i, 4), nullptr, 16);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && line.compare(i, 2, "\\u") == 0) {  // surrogate pair
          const uint32_t lo = std::stoul(line.substr(i + 2, 4), nullptr, 16);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default: out += e;  // \" \\ \/
    }
  }
  return out;
}

Ids json_ids(const std::string& line) {
  std::size_t i = line.find("\"input_ids\": [");
  REQUIRE_MESSAGE(i != std::string::npos, "golden line lacks input_ids");
  std::istringstream in(line.substr(i + 14, line.find(']', i) - i - 14));
  Ids ids;
  std::string item;
  while (std::getline(in, item, ',')) ids.push_back(std::stoi(item));
  return ids;
}

}  // namespace

TEST_CASE("tokenizer: basic tokenization rules") {
  const auto tok = tiny();
  CHECK(tok.basic_tokenize("") == Words{});
  CHECK(tok.basic_tokenize(" \t\r\n ") == Words{});
  CHECK(tok.basic_tokenize("Hello,  World!") == Words{"hello", ",", "world", "!"});
  // Accents: precomposed and combining forms both lose the mark.
  CHECK(tok.basic_tokenize("Café CAFE\xCC\x81") == Words{"cafe", "cafe"});
  // CJK ideographs stand alone; kana and hangul do not.
  CHECK(tok.basic_tokenize("ab我们cd") == Words{"ab", "我", "们", "cd"});
  // IMDB's line breaks.
  CHECK(tok.basic_tokenize("end.<br /><br />Next") ==
        Words{"end", ".", "<", "br", "/", ">", "<", "br", "/", ">", "next"});
  CHECK(tok.basic_tokenize("don't 3.14") == Words{"don", "'", "t", "3", ".", "14"});
  // Unicode punctuation (P*) splits, symbols (S*) do not.
  CHECK(tok.basic_tokenize("a\xE2\x80\x94" "b \xC2\xABq\xC2\xBB x$y") ==
        Words{"a", "\xE2\x80\x94", "b", "\xC2\xAB", "q", "\xC2\xBB", "x", "$", "y"});
  // Control and format characters vanish without splitting; tab, newline,
  // no-break space and the line separator split.
  CHECK(tok.basic_tokenize(std::string("a\0b\x07" "c\xE2\x80\x8B" "d", 9)) == Words{"abcd"});
  CHECK(tok.basic_tokenize("a\tb\nc\xC2\xA0" "d\xE2\x80\xA8" "e") == Words{"a", "b", "c", "d", "e"});
  // Special tokens written in the text are kept whole (case-sensitive).
  CHECK(tok.basic_tokenize("x[SEP]y [sep]") == Words{"x", "[SEP]", "y", "[", "sep", "]"});
}

TEST_CASE("tokenizer: invalid UTF-8 drops the bad bytes and never throws") {
  const auto tok = tiny();
  CHECK(tok.basic_tokenize("ab\xFF" "cd") == Words{"abcd"});
  CHECK(tok.basic_tokenize("\xC3") == Words{});                 // truncated sequence
  CHECK(tok.basic_tokenize("x\xED\xA0\x80y") == Words{"xy"});  // UTF-16 surrogate
  CHECK(tok.basic_tokenize("\xC3\xA9\x80") == Words{"e"});      // stray continuation byte
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise += static_cast<char>((i * 7919) & 0xFF);
  CHECK_NOTHROW(tok.encode(noise));
}

TEST_CASE("tokenizer: WordPiece greedy longest match") {
  const auto tok = tiny();
  CHECK(tok.encode_words("unaffable") == Ids{5, 6, 7});
  CHECK(tok.encode_words("aff") == Ids{8});
  CHECK(tok.encode_words("affable") == Ids{8, 7});
  CHECK(tok.encode_words("unaffz") == Ids{1});  // no "##z": the whole word is unknown
  CHECK(tok.encode_words("able") == Ids{1});    // "##able" only continues a word
  CHECK(tok.encode_words("The unaffable!") == Ids{10, 5, 6, 7, 9});
  CHECK(tok.encode_words("aaa") == Ids{11, 12, 12});
  CHECK(tok.encode_words("Café 我") == Ids{13, 14});
  CHECK(tok.encode_words("[MASK][PAD]") == Ids{4, 0});
}

TEST_CASE("tokenizer: the 100-character word limit counts characters, not bytes") {
  const auto tok = tiny();
  Ids hundred(100, 16);
  hundred[0] = 15;
  CHECK(tok.encode_words(std::string(100, 'x')) == hundred);
  CHECK(tok.encode_words(std::string(101, 'x')) == Ids{1});
  std::string accented;  // 100 x's with an accent each: 300 bytes, 100 characters
  for (int i = 0; i < 100; ++i) accented += "X\xCC\x81";
  CHECK(tok.encode_words(accented) == hundred);
}

TEST_CASE("tokenizer: [CLS] ... [SEP] and truncation keeps [SEP]") {
  const auto tok = tiny();
  CHECK(tok.encode("") == Ids{2, 3});
  CHECK(tok.encode("the a") == Ids{2, 10, 11, 3});
  CHECK(tok.encode("the a the", 4) == Ids{2, 10, 11, 3});
  CHECK(tok.encode("unaffable", 3) == Ids{2, 5, 3});
  CHECK(tok.encode("the", 2) == Ids{2, 3});
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "a ";
  const Ids ids = tok.encode(many, 512);
  REQUIRE(ids.size() == 512);
  CHECK(ids.front() == 2);
  CHECK(ids.back() == 3);
  CHECK(tok.encode_words(many).size() == 1000);
  CHECK_THROWS_AS(tok.encode("x", 1), ftb::InputError);
}

TEST_CASE("tokenizer: vocabulary files") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / ("ftb_tok_vocab_" + std::to_string(::getpid()) + ".txt")).string();
  const auto tok = tiny();
  tok.save(path);
  const auto back = WordPieceTokenizer::from_file(path);
  CHECK(back.tokens() == tok.tokens());
  CHECK(back.unk_id() == 1);
  CHECK(back.token_id("##aff") == 6);
  CHECK(back.token_id("nope") == -1);
  {  // CRLF line ends are accepted
    std::ofstream out(path, std::ios::binary);
    out << "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nhi\r\n";
  }
  CHECK(WordPieceTokenizer::from_file(path).encode("Hi") == Ids{2, 4, 3});
  std::remove(path.c_str());

  try {
    WordPieceTokenizer::from_file(path);
    FAIL("expected an InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
  try {
    WordPieceTokenizer::from_tokens({"[PAD]", "[CLS]", "[SEP]"}, "my-vocab");
    FAIL("expected an InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "my-vocab: vocabulary lacks [UNK]");
  }
  // A duplicated token maps to its last line, as in HF's dict.
  const auto dup = WordPieceTokenizer::from_tokens({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "a"});
  CHECK(dup.encode_words("a") == Ids{5});
}

TEST_CASE("tokenizer: golden file from Hugging Face tokenizers") {
  const auto tok = WordPieceTokenizer::from_file(kBertVocab);
  REQUIRE(tok.vocab_size() == 30522);
  CHECK(tok.pad_id() == 0);
  CHECK(tok.unk_id() == 100);
  CHECK(tok.cls_id() == 101);
  CHECK(tok.sep_id() == 102);

  std::ifstream in(kGolden, std::ios::binary);
  REQUIRE_MESSAGE(in, kGolden << ": missing; run tools/golden_tokenizer.py");
  std::string line;
  int cases = 0, imdb = 0, mismatches = 0;
  bool saw_truncation = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::string name = json_string(line, "name");
    const std::string text = json_string(line, "text");
    const Ids want = json_ids(line);
    const Ids got = tok.encode(text, 512);
    ++cases;
    if (name.rfind("imdb:", 0) == 0) ++imdb;
    if (got != want) ++mismatches;
    INFO("case " << name);
    CHECK(got == want);
    if (want.size() == 512) {
      saw_truncation = true;
      CHECK(got.back() == tok.sep_id());
    }
  }
  MESSAGE("golden: " << cases << " cases (" << imdb << " IMDB reviews), " << mismatches
                     << " mismatches");
  CHECK(cases >= 40);
  CHECK(imdb >= 20);
  CHECK(saw_truncation);
}

TEST_CASE("tokenizer: the shared vocabulary equals the committed copy") {
  const std::string shared = FTB_SHARED_DATA_DIR "/bert-base-uncased-vocab.txt";
  if (!std::filesystem::exists(shared))
    FTB_SKIP_CASE(shared << " is absent: distilbert-base-uncased's vocab.txt under that name, in the folder "
                            "-DFTB_DATA_DIR=DIR names; every other case reads the committed copy");
  CHECK(WordPieceTokenizer::from_file(shared).tokens() ==
        WordPieceTokenizer::from_file(kBertVocab).tokens());
}
