// key=value overrides (apply_override on the smoke preset, one per line),
// then validate, the report's config JSON and the start-of-run table, as
// `ftbench run` does before any work starts.
#include "core/train/run_config.h"
#include "tests/fuzz/fuzz_input.h"
#include "core/base/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ftb::RunConfig config = ftb::preset_config("smoke");
  std::string_view rest = ftb::fuzz::as_view(data, size);
  bool ok = true;
  while (!rest.empty() && ok) {
    const std::size_t nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    ok = ftb::fuzz::accepts([&] { ftb::apply_override(config, line); });
  }
  if (!ok) return 0;
  ftb::fuzz::accepts([&] {
    ftb::validate(config);
    // As report.json is written (reports/record/report.cpp dump): bytes that are not
    // UTF-8 (a Latin-1 path in model_dir) become U+FFFD instead of throwing.
    ftb::json_text(ftb::to_json(config), 2);
    ftb::config_rows(config);
  });
  return 0;
}
