// tokenizer.json (Hugging Face's fast-tokenizer file) for WordPiece models:
// the golden file of tools/golden_tokenizer_json.py (the `tokenizers` package
// on the hard cases, four normaliser / post-processor variants), the special
// tokens it names, and one-line errors for what it cannot reproduce.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/text/tokenizer_json.h"

namespace {

const std::string kDir = FTB_FIXTURES_DIR "/tokenizer_json";
const std::string kGolden = FTB_FIXTURES_DIR "/tokenizer_json_golden.jsonl";

nlohmann::json fixture(const std::string& variant) {
  std::ifstream in(kDir + "/" + variant + ".json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// `j` written to a temporary tokenizer.json, then read back (or its error).
std::string read_error(const nlohmann::json& j) {
  ftb::TempDir dir("ftb-tokjson-");
  const std::string path = dir.path() + "/tokenizer.json";
  ftb::write_file_atomic(path, j.dump());
  try {
    ftb::load_tokenizer_file(path);
  } catch (const ftb::InputError& e) {
    const std::string what = e.what();
    REQUIRE(what.rfind(path + ": ", 0) == 0);  // names the file
    return what.substr(path.size() + 2);
  }
  return "";
}

}  // namespace

TEST_CASE("tokenizer.json: every golden line matches the tokenizers package") {
  std::ifstream in(kGolden);
  REQUIRE(in.good());
  std::map<std::string, ftb::WordPieceTokenizer> tokenizers;
  std::string line;
  int lines = 0, mismatches = 0;
  while (std::getline(in, line)) {
    const auto g = nlohmann::json::parse(line);
    const auto variant = g.at("variant").get<std::string>();
    if (!tokenizers.count(variant)) tokenizers.emplace(variant, ftb::load_tokenizer_file(kDir + "/" + variant + ".json"));
    const auto got = tokenizers.at(variant).encode(g.at("text").get<std::string>(), 512);
    const auto want = g.at("input_ids").get<std::vector<int32_t>>();
    if (got != want) {
      ++mismatches;
      MESSAGE(variant << " / " << g.at("name").get<std::string>() << " differs");
    }
    ++lines;
  }
  CHECK(lines == 4 * 37);
  CHECK(mismatches == 0);
  CHECK(tokenizers.size() == 4);
}

TEST_CASE("tokenizer.json: settings and special tokens come from the file") {
  const auto cased = ftb::load_tokenizer_file(kDir + "/cased.json");
  CHECK_FALSE(cased.options().lowercase);
  CHECK_FALSE(cased.options().strip_accents);  // null follows lowercase
  const auto keep = ftb::load_tokenizer_file(kDir + "/lower_keep_accents.json");
  CHECK(keep.options().lowercase);
  CHECK_FALSE(keep.options().strip_accents);
  const auto raw = ftb::load_tokenizer_file(kDir + "/raw_text_no_cjk.json");
  CHECK_FALSE(raw.options().clean_text);
  CHECK_FALSE(raw.options().handle_chinese_chars);

  // Special tokens under other names: the ids follow the file, not "[CLS]".
  auto j = fixture("uncased_template");
  auto& vocab = j["model"]["vocab"];
  vocab["<s>"] = vocab["[CLS]"];
  vocab["</s>"] = vocab["[SEP]"];
  vocab.erase("[CLS]");
  vocab.erase("[SEP]");
  for (auto& t : j["added_tokens"]) {
    if (t["content"] == "[CLS]") t["content"] = "<s>";
    if (t["content"] == "[SEP]") t["content"] = "</s>";
  }
  j["post_processor"] = {{"type", "BertProcessing"}, {"cls", {"<s>", 101}}, {"sep", {"</s>", 102}}};
  ftb::TempDir dir("ftb-tokjson-");
  const std::string path = dir.path() + "/tokenizer.json";
  ftb::write_file_atomic(path, j.dump());
  const auto renamed = ftb::load_tokenizer_file(path);
  CHECK(renamed.cls_id() == 101);
  CHECK(renamed.sep_id() == 102);
  CHECK(renamed.encode("a </s> b", 16) == std::vector<int32_t>{101, 1037, 102, 1038, 102});
}

TEST_CASE("tokenizer.json: what the tokenizer cannot reproduce is a one-line error naming the key") {
  auto bpe = fixture("cased");
  bpe["model"]["type"] = "BPE";
  CHECK(read_error(bpe) == "key 'model.type' is \"BPE\"; only WordPiece tokenizers are supported");

  auto prefix = fixture("cased");
  prefix["model"]["continuing_subword_prefix"] = "@@";
  CHECK(read_error(prefix) == "key 'model.continuing_subword_prefix' is \"@@\"; only \"##\" is supported");

  auto normaliser = fixture("cased");
  normaliser["normalizer"] = {{"type", "NFKC"}};
  CHECK(read_error(normaliser) == "key 'normalizer.type' is \"NFKC\"; only BertNormalizer is supported");

  auto gap = fixture("cased");
  gap["model"]["vocab"].erase("[unused5]");
  CHECK(read_error(gap) == "key 'model.vocab': no token has id 6 (ids must run from 0 without gaps)");

  auto no_unk = fixture("cased");
  no_unk["model"].erase("unk_token");
  CHECK(read_error(no_unk) == "missing key 'model.unk_token'");

  CHECK(read_error(nlohmann::json::array()).find("expected an object") != std::string::npos);
}
