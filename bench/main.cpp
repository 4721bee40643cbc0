// ftbench: fine-tuning speed-up benchmark. `ftbench --help` lists commands.
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include <signal.h>

#include <iostream>
#include <thread>

#include "bench/commands.h"
#include "scenarios/parallel/rank_env.h"
#include "scenarios/parallel/rank_protocol.h"
#include "core/base/errors.h"

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) would otherwise kill the process with
  // SIGXFSZ in the middle of a write; ignored, the write fails with EFBIG and
  // write_file_atomic reports the file, leaving the previous one intact.
  signal(SIGXFSZ, SIG_IGN);
  // NCCL's error-handling mode, in a rank of a multi-rank job: set here, the
  // first thing, while this process has one thread (setenv races getenv).
  ftb::set_nccl_error_modes_in_environment();
  ftb::set_invocation(argc, argv);  // the ranks of a distributed scenario re-run this command line
  CLI::App app{"ftbench: fine-tunes DistilBERT on IMDB sentiment under one scenario per training "
               "speed-up technique and reports time, throughput, accuracy and memory."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");
  std::vector<ftb::Command> commands;
  for (auto add : {ftb::add_run_command, ftb::add_list_command, ftb::add_predict_command,
                   ftb::add_tokenize_command, ftb::add_compare_command, ftb::add_history_command,
                   ftb::add_regress_command, ftb::add_calibrate_command, ftb::add_export_command,
                   ftb::add_report_command, ftb::add_power_command, ftb::add_duet_command})
    commands.push_back(add(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // one line naming the flag, exit code 2 (bad usage)
    std::cerr << "ftbench: " << ftb::one_line(e.what()) << " (see --help)\n";
    return 2;
  }
  try {
    for (auto& cmd : commands)
      if (cmd.app->parsed()) return cmd.run();
  } catch (const ftb::InputError& e) {
    std::cerr << "ftbench: " << ftb::one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ftbench: error: " << ftb::one_line(ftb::first_line(e.what())) << "\n";
    return 1;
  }
  return 0;
}
