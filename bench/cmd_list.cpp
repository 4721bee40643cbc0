// ftbench list: every registered scenario, its technique and whether it can
// run here with the given preset (and why not), in 120 columns like run's
// console table: long cells wrap onto continuation lines.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/commands.h"
#include "bench/progress.h"
#include "core/base/text_format.h"
#include "core/train/run_config.h"
#include "reports/views/console_table.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

std::size_t widest_word(const std::string& s) {
  std::istringstream in(s);
  std::size_t w = 0;
  for (std::string word; in >> word;) w = std::max(w, display_width(word));
  return w;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// One table row per line of the wrapped cells; continuation lines indent by
// indents[c] (a wrapped scenario name must not read as the next scenario).
void append_wrapped(std::vector<std::vector<std::string>>& rows, const std::vector<std::string>& cells,
                    const std::vector<std::size_t>& widths, const std::vector<std::size_t>& indents) {
  std::vector<std::vector<std::string>> cols;
  std::size_t height = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    cols.push_back(lines_of(wrap_text(cells[c], widths[c], indents[c])));
    height = std::max(height, cols.back().size());
  }
  for (std::size_t k = 0; k < height; ++k) {
    std::vector<std::string> row;
    for (const auto& col : cols) row.push_back(k < col.size() ? col[k] : "");
    rows.push_back(row);
  }
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto preset = std::make_shared<std::string>("quick");
  auto* sub = app.add_subcommand("list", "list scenarios and their availability on this machine");
  sub->add_option("--preset", *preset, "preset to check availability against");
  return {sub, [preset] {
            const RunConfig c = preset_config(*preset);
            // the availability (with a possibly long reason) last, so columns stay narrow
            std::vector<std::vector<std::string>> cells;
            for (const auto& s : scenario_registry()) {
              std::string why = s.unavailable ? s.unavailable(c) : "";
              std::string name = s.name;
              for (std::size_t i = 0; i < s.aliases.size(); ++i)
                name += (i == 0 ? (s.aliases.size() > 1 ? " (aliases: " : " (alias: ") : ", ") + s.aliases[i] +
                        (i + 1 == s.aliases.size() ? ")" : "");
              cells.push_back({name, s.technique, why.empty() ? "yes" : "no: " + why});
            }
            // Widths: the name column as narrow as its longest word allows
            // (its continuation lines indented 2), at most 26 otherwise; the
            // rest of the 120 columns (less 2 spaces between columns) split
            // 55:45 between technique and availability.
            const std::vector<std::size_t> indents{2, 0, 4};
            std::size_t name_w = 0, name_word = 0;
            for (const auto& r : cells) {
              name_w = std::max(name_w, display_width(r[0]));
              name_word = std::max(name_word, indents[0] + widest_word(r[0]));
            }
            name_w = std::max(std::min<std::size_t>(name_w, 26), name_word);
            const std::size_t rest = kConsoleWidth > name_w + 4 + 40 ? kConsoleWidth - name_w - 4 : 40;
            const std::size_t technique_w = rest * 55 / 100;
            const std::vector<std::size_t> widths{name_w, technique_w, rest - technique_w};
            std::vector<std::vector<std::string>> rows{{"scenario", "technique", "available here"}};
            for (const auto& r : cells) append_wrapped(rows, r, widths, indents);
            print_table(rows);
            return 0;
          }};
}

}  // namespace ftb
