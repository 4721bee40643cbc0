// ftbench list: every registered scenario, its technique and whether it can
// run here with the given preset (and why not).
#include <iostream>

#include "bench/commands.h"
#include "bench/progress.h"
#include "core/train/run_config.h"
#include "scenarios/registry.h"

namespace ftb {

Command add_list_command(CLI::App& app) {
  auto preset = std::make_shared<std::string>("smoke");
  auto* sub = app.add_subcommand("list", "list scenarios and their availability on this machine");
  sub->add_option("--preset", *preset, "preset to check availability against");
  return {sub, [preset] {
            const RunConfig c = preset_config(*preset);
            // the availability (with a possibly long reason) last, so columns stay narrow
            std::vector<std::vector<std::string>> rows{{"scenario", "technique", "available here"}};
            for (const auto& s : scenario_registry()) {
              std::string why = s.unavailable ? s.unavailable(c) : "";
              std::string name = s.name;
              for (std::size_t i = 0; i < s.aliases.size(); ++i)
                name += (i == 0 ? (s.aliases.size() > 1 ? " (aliases: " : " (alias: ") : ", ") + s.aliases[i] +
                        (i + 1 == s.aliases.size() ? ")" : "");
              rows.push_back({name, s.technique, why.empty() ? "yes" : "no: " + why});
            }
            print_table(rows);
            return 0;
          }};
}

}  // namespace ftb
