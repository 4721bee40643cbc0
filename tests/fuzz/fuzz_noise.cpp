// noise.json (read_noise_file), then `regress --noise` with it: the committed
// report judged against itself with the fuzzed noise floors.
#include "core/base/json_fields.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/regress.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json fixture_json = ftb::read_json_file(FTB_FUZZ_REPORT);
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "noise.json");
  ftb::NoiseFile noise;
  if (!ftb::fuzz::accepts([&] { noise = ftb::read_noise_file(path); })) return 0;
  ftb::fuzz::accepts([&] {
    ftb::RegressOptions options;
    options.noise = &noise;
    options.noise_path = path;
    ftb::regress_markdown(ftb::regress_vs_baseline({{fixture_json, "fixture"}}, fixture_json, "fixture", options));
  });
  return 0;
}
