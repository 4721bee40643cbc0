// The ftbench subcommands. Each registers its CLI11 options and returns the
// function to run after parsing (exit code: 0 ok, 1 failure, 2 bad input).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ftb {

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command add_run_command(CLI::App& app);
Command add_list_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_tokenize_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_history_command(CLI::App& app);
Command add_regress_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_power_command(CLI::App& app);
Command add_duet_command(CLI::App& app);

}  // namespace ftb
