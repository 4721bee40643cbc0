// vocab.txt: WordPieceTokenizer::from_file (one token per line, special
// tokens required), then encoding a fixed text with whatever was accepted.
#include <cstdlib>

#include "core/text/tokenizer.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "vocab.txt");
  ftb::fuzz::accepts([&] {
    const auto tok = ftb::WordPieceTokenizer::from_file(path);
    const auto ids = tok.encode("Un-affable [SEP] héllo, wörld!! 3.14 ##ing [UNK] 日本語 \xff\xfe x", 16);
    if (ids.size() > 16 || ids.front() != tok.cls_id() || ids.back() != tok.sep_id()) std::abort();
    for (int32_t id : ids)
      if (id < 0 || static_cast<std::size_t>(id) >= tok.vocab_size()) std::abort();
  });
  return 0;
}
