// HF config.json: read_config (JSON, required shape keys, types) and
// validate_config (coherent sizes), as load_model_dir runs them.
#include "core/model/hf_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "config.json");
  ftb::fuzz::accepts([&] {
    const ftb::ModelConfig c = ftb::read_config(path);
    ftb::validate_config(c, path);
    // What save_model_dir writes must read back.
    ftb::validate_config(ftb::config_from_json(ftb::config_to_json(c), "round trip"), "round trip");
  });
  return 0;
}
