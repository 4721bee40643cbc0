// ftbench run: flags -> config, the sweep runs the rows (scenarios/sweep.h),
// and the report is written after every row (atomically: a crash later never
// loses what was written).
#include <ctime>
#include <iostream>

#include "bench/commands.h"
#include "bench/run_flags.h"
#include "reports/analysis/noise.h"
#include "reports/views/console_table.h"
#include "reports/views/views.h"

namespace ftb {
namespace {

std::string default_out_dir() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return std::string("out/") + buf;
}

int run(const RunArgs& args, const std::string& out_flag, const std::string& noise_flag) {
  const RunConfig config = resolve_config(args);
  // Read before any work: a bad file is exit 2 with nothing run.
  const nlohmann::json run_noise =
      noise_flag.empty() ? nlohmann::json(nullptr) : run_noise_json(read_noise_file(noise_flag), noise_flag);
  const std::string out = out_flag.empty() ? default_out_dir() : out_flag;
  Report report;
  const SweepOutcome done = run_and_write(config, out, report, run_noise);
  if (!done.wrote) return done.exit_code;
  // The pictures come last: a renderer problem is said once and is no failure.
  const RenderOutcome views =
      write_report_views({out, &report, /*beside_report=*/true, done.outputs_current}, default_renderer());
  if (!views.rendered) std::cerr << "note: charts not rendered to SVG/PNG: " << views.why_not << "\n";
  std::cout << "\n" << console_table(report) << "\nreport: " << out << "/report.json\npage:   " << out
            << "/index.html\n";
  return done.exit_code;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto out = std::make_shared<std::string>();
  auto noise = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("run", "run scenarios and write DIR/report.json, table.md, steps.csv, charts/, index.html");
  add_run_flags(sub, *args);
  sub->add_option("--out", *out, "report folder (default out/<date-time>)");
  sub->add_option("--noise", *noise, "noise.json from `ftbench calibrate` (this machine and config): the speed-up "
                                     "intervals then carry the run-to-run noise it measured, not only this run's repeats");
  return {sub, [args, out, noise] { return run(*args, *out, *noise); }};
}

}  // namespace ftb
