// The tokenizer on arbitrary bytes (invalid UTF-8, NUL, overlong sequences,
// long words) with bert-base-uncased's vocabulary. The first byte picks
// max_length. Invariants: [CLS] first, [SEP] last, at most max_length ids,
// every id in the vocabulary; encode = [CLS] + encode_words (truncated) + [SEP].
#include <cstdlib>

#include "core/text/tokenizer.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto tok = ftb::WordPieceTokenizer::from_file(FTB_FUZZ_VOCAB);
  if (size == 0) return 0;
  const int max_length = 2 + data[0];
  const std::string_view text = ftb::fuzz::as_view(data + 1, size - 1);
  const auto ids = tok.encode(text, max_length);
  const auto words = tok.encode_words(text);
  if (ids.size() < 2 || ids.size() > static_cast<std::size_t>(max_length)) std::abort();
  if (ids.front() != tok.cls_id() || ids.back() != tok.sep_id()) std::abort();
  if (ids.size() - 2 != std::min(words.size(), static_cast<std::size_t>(max_length - 2))) std::abort();
  for (std::size_t i = 0; i + 2 < ids.size(); ++i)
    if (ids[i + 1] != words[i]) std::abort();
  for (int32_t id : words)
    if (id < 0 || static_cast<std::size_t>(id) >= tok.vocab_size()) std::abort();
  for (const auto& w : tok.basic_tokenize(text))
    if (w.empty()) std::abort();
  return 0;
}
