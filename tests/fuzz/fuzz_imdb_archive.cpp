// The IMDB archive reader on arbitrary bytes: libarchive with every filter
// (gzip, bzip2, xz, ...) and the tar formats, then the aclImdb member names.
#include <cstdlib>

#include "core/text/text_data.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "aclImdb.tar.gz");
  ftb::fuzz::accepts([&] {
    for (const auto& e : ftb::read_imdb_archive(path))
      if (e.label != 0 && e.label != 1) std::abort();
  });
  return 0;
}
