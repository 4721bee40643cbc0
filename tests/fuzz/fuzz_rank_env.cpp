// The rank environment variables (torchrun's, Open MPI's, SLURM's, MASTER_*)
// through dist_env_from. The input is "NAME=value" lines; the last line for a
// name wins. An accepted environment is a coherent rank of a coherent world.
#include <cstdlib>
#include <map>

#include "scenarios/parallel/rank_env.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::map<std::string, std::string> vars;
  std::string_view rest = ftb::fuzz::as_view(data, size);
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    // A real environment cannot hold a NUL inside a value.
    vars[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1).substr(0, line.substr(eq + 1).find('\0')));
  }
  auto lookup = [&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  ftb::fuzz::accepts([&] {
    const ftb::DistEnv e = ftb::dist_env_from(lookup);
    if (e.world_size < 1 || e.rank < 0 || e.rank >= e.world_size) std::abort();
    if (e.local_world_size < 1 || e.local_rank < 0 || e.local_rank >= e.local_world_size) std::abort();
    if (e.master_port < 0 || e.master_port > 65535 || e.master_addr.empty()) std::abort();
    if (e.launched == (e.launcher == ftb::Launcher::none)) std::abort();
  });
  return 0;
}
