// The JSONL input of `predict` and `tokenize` (bench/jsonl.h): every line a
// JSON object, then each line as tokenize reads it ("text") and as predict
// does ("text", or integer "input_ids" + "attention_mask", checked against
// distilbert-base-uncased's sizes), texts tokenized with its vocabulary.
#include <cstdlib>

#include "bench/jsonl.h"
#include "core/text/tokenizer.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto tok = ftb::WordPieceTokenizer::from_file(FTB_FUZZ_VOCAB);
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "input.jsonl");
  std::vector<nlohmann::json> lines;
  if (!ftb::fuzz::accepts([&] { lines = ftb::read_jsonl(path); })) return 0;
  for (const auto& line : lines) {
    if (!line.is_object()) std::abort();  // read_jsonl's promise
    ftb::fuzz::accepts([&] { tok.encode(ftb::text_of_line(line, "line")); });
    ftb::fuzz::accepts([&] {
      ftb::PredictLine p = ftb::predict_line(line, "entry");
      if (p.has_text) {
        for (int32_t id : tok.encode(p.text, 512)) p.ids.push_back(id);
        p.mask.assign(p.ids.size(), 1);
      }
      if (p.mask.size() != p.ids.size()) std::abort();
      ftb::check_predict_ids(p.ids, 512, 30522, "entry");
    });
  }
  return 0;
}
