// ftbench tokenize --vocab FILE --input FILE.jsonl: {"input_ids": [...]} per
// input line {"text": ...}, with [CLS]/[SEP] and truncation to --max-length.
#include <iostream>

#include "bench/commands.h"
#include "bench/jsonl.h"
#include "core/text/tokenizer_json.h"
#include "core/base/json_text.h"

namespace ftb {

Command add_tokenize_command(CLI::App& app) {
  struct Args {
    std::string vocab, input;
    int max_length = 512;
  };
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("tokenize", "WordPiece-tokenize {\"text\": ...} lines (HF-compatible)");
  sub->add_option("--vocab", a->vocab, "vocab.txt (one token per line) or tokenizer.json")->required();
  sub->add_option("--input", a->input, "JSON lines with a \"text\" field")->required();
  sub->add_option("--max-length", a->max_length, "truncate to this many tokens, [SEP] kept")
      ->check(CLI::Range(2, 1 << 20));
  return {sub, [a] {
            const auto tok = load_tokenizer_file(a->vocab);
            const auto lines = read_jsonl(a->input);
            std::vector<std::string> texts;
            for (std::size_t i = 0; i < lines.size(); ++i)
              texts.push_back(text_of_line(lines[i], a->input + ": line " + std::to_string(i + 1) + " (non-blank)"));
            for (const auto& t : texts)
              std::cout << json_text(nlohmann::json{{"input_ids", tok.encode(t, a->max_length)}}) << "\n";
            return 0;
          }};
}

}  // namespace ftb
