// safetensors header and layout: header length, JSON header, dtypes, shapes,
// byte ranges (core/model/safetensors_layout.h, what SafetensorsFile::read
// validates before it copies any tensor).
#include <cstdlib>

#include "core/model/safetensors_layout.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ftb::fuzz::accepts([&] {
    const auto layout = ftb::parse_safetensors_layout(ftb::fuzz::as_view(data, size), "fuzz.safetensors");
    // What SafetensorsFile::tensor's memcpy relies on: every accepted range
    // lies inside the file, and its size is the shape's times the dtype's.
    for (const auto& [name, e] : layout.entries) {
      if (e.begin > e.end || layout.data_start + e.end > size) std::abort();
      uint64_t numel = 1;
      for (int64_t d : e.shape) numel *= static_cast<uint64_t>(d);
      if (numel * ftb::safetensors_dtype_bytes(e.dtype) != e.end - e.begin) std::abort();
    }
  });
  return 0;
}
