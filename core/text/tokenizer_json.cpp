#include "core/text/tokenizer_json.h"

#include <filesystem>
#include <map>

#include "core/base/json_fields.h"

namespace ftb {
namespace {

using json = nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `j` (named `key`) must be null or an object whose "type" is `want`.
void require_type(const JsonFields& root, const char* key, const char* want) {
  if (!root.has(key) || root.at(key).is_null()) return;
  const auto type = root.object(key).string("type");
  if (type != want)
    throw InputError("key '" + root.name(key) + ".type' is \"" + type + "\"; only " + want + " is supported");
}

TokenizerOptions normaliser_options(const JsonFields& root) {
  TokenizerOptions o;
  if (!root.has("normalizer") || root.at("normalizer").is_null()) {
    // No normaliser: text is taken as written.
    o.clean_text = o.handle_chinese_chars = o.strip_accents = o.lowercase = false;
    return o;
  }
  require_type(root, "normalizer", "BertNormalizer");
  const auto n = root.object("normalizer");
  auto flag = [&](const char* key, bool fallback) {
    if (!n.has(key) || n.at(key).is_null()) return fallback;
    if (!n.at(key).is_boolean()) throw InputError("key '" + n.name(key) + "': expected a boolean");
    return n.at(key).get<bool>();
  };
  o.clean_text = flag("clean_text", true);
  o.handle_chinese_chars = flag("handle_chinese_chars", true);
  o.lowercase = flag("lowercase", true);
  o.strip_accents = flag("strip_accents", o.lowercase);  // BertNormalizer: null follows lowercase
  return o;
}

// [CLS] and [SEP] as the post-processor adds them to a single sequence.
void special_tokens_from_post_processor(const JsonFields& root, TokenizerOptions& o) {
  if (!root.has("post_processor") || root.at("post_processor").is_null()) return;
  const auto p = root.object("post_processor");
  const auto type = p.string("type");
  if (type == "BertProcessing") {
    o.cls = p.array("cls").at(0).get<std::string>();
    o.sep = p.array("sep").at(0).get<std::string>();
    return;
  }
  if (type != "TemplateProcessing")
    throw InputError("key '" + p.name("type") + "' is \"" + type +
                     "\"; only BertProcessing or TemplateProcessing is supported");
  // single: [SpecialToken CLS, Sequence A, SpecialToken SEP].
  const auto& single = p.array("single");
  std::vector<std::string> around;
  bool seen_sequence = false, shape_ok = true;
  for (const auto& piece : single) {
    if (piece.contains("Sequence")) {
      shape_ok = shape_ok && !seen_sequence;
      seen_sequence = true;
    } else if (piece.contains("SpecialToken")) {
      around.push_back(piece.at("SpecialToken").at("id").get<std::string>());
    }
  }
  if (!shape_ok || !seen_sequence || around.size() != 2 || single.size() != 3)
    throw InputError("key '" + p.name("single") + "' is not [CLS] $A [SEP]: WordPieceTokenizer adds exactly that");
  o.cls = around[0];
  o.sep = around[1];
}

WordPieceTokenizer parse(const json& j, const std::string& path) {
  const JsonFields root(j, "");
  const auto model = root.object("model");
  const auto type = model.has("type") ? model.string("type") : std::string("(none)");
  if (type != "WordPiece")
    throw InputError("key 'model.type' is \"" + type + "\"; only WordPiece tokenizers are supported");
  if (model.has("continuing_subword_prefix") && model.string("continuing_subword_prefix") != "##")
    throw InputError("key 'model.continuing_subword_prefix' is \"" + model.string("continuing_subword_prefix") +
                     "\"; only \"##\" is supported");
  require_type(root, "pre_tokenizer", "BertPreTokenizer");

  TokenizerOptions o = normaliser_options(root);
  o.unk = model.string("unk_token");
  if (model.has("max_input_chars_per_word"))
    o.max_input_chars_per_word = static_cast<int>(model.integer("max_input_chars_per_word"));
  special_tokens_from_post_processor(root, o);
  if (root.has("padding") && !root.at("padding").is_null()) o.pad = root.object("padding").string("pad_token");

  // id -> token, from model.vocab and added_tokens (which may extend it).
  std::map<int64_t, std::string> by_id;
  const auto vocab = model.object("vocab");
  for (const auto& [token, id] : model.at("vocab").items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0)
      throw InputError("key '" + vocab.name(token) + "': expected an id >= 0");
    by_id[id.get<int64_t>()] = token;
  }
  if (root.has("added_tokens")) {
    const auto& added = root.array("added_tokens");
    for (std::size_t i = 0; i < added.size(); ++i) {
      const JsonFields t(added[i], indexed("added_tokens", i));
      const auto id = t.integer("id");
      const auto content = t.string("content");
      if (id < 0) throw InputError("key '" + t.name("id") + "': expected an id >= 0");
      by_id[id] = content;
      if (t.has("special") && t.at("special").is_boolean() && t.at("special").get<bool>())
        o.specials.push_back(content);
    }
  }
  std::vector<std::string> tokens;
  tokens.reserve(by_id.size());
  for (const auto& [id, token] : by_id) {
    if (id != static_cast<int64_t>(tokens.size()))
      throw InputError("key 'model.vocab': no token has id " + std::to_string(tokens.size()) +
                       " (ids must run from 0 without gaps)");
    tokens.push_back(token);
  }
  if (o.specials.empty()) o.specials = {o.pad, o.unk, o.cls, o.sep};
  return WordPieceTokenizer::from_tokens(std::move(tokens), path, std::move(o));
}

}  // namespace

WordPieceTokenizer read_tokenizer_json(const std::string& path) {
  const json j = read_json_file(path);
  try {
    return parse(j, path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind(path + ": ", 0) == 0) throw;  // already names the file
    input_error(path, what);
  } catch (const json::exception& e) {
    input_error(path, "unexpected structure: " + json_message(e));
  }
}

WordPieceTokenizer load_tokenizer_file(const std::string& path) {
  return ends_with(path, ".json") ? read_tokenizer_json(path) : WordPieceTokenizer::from_file(path);
}

std::string model_tokenizer_file(const std::string& model_dir) {
  namespace fs = std::filesystem;
  for (const char* name : {"tokenizer.json", "vocab.txt"}) {
    const auto path = (fs::path(model_dir) / name).string();
    if (fs::exists(path)) return path;
  }
  input_error(model_dir, "model folder has neither tokenizer.json nor vocab.txt (pass vocab=FILE)");
}

}  // namespace ftb
