// The CSV reader (libcsv, RFC 4180): header with text and label, quoting,
// labels 0/1.
#include <cstdlib>

#include "core/text/text_data.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "input.csv");
  ftb::fuzz::accepts([&] {
    for (const auto& e : ftb::read_csv(path))
      if (e.label != 0 && e.label != 1) std::abort();
  });
  return 0;
}
