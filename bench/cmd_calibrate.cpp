// ftbench calibrate [run flags] --runs N --out DIR: an A/A run. The same
// configuration runs N times (each a full sweep, as `run` does: fresh
// workload, warm-up, every repeat), each report in DIR/run-K/, and
// DIR/noise.json holds how far the runs disagree (reports/noise.h), which
// `regress --noise` uses as its noise floor.
#include <iostream>

#include "bench/commands.h"
#include "bench/run_flags.h"
#include "core/text/errors.h"
#include "core/text/files.h"
#include "core/text/text_format.h"
#include "reports/history.h"
#include "reports/noise.h"
#include "scenarios/parallel/rank_protocol.h"
#include "core/text/json_text.h"

namespace ftb {
namespace {

struct CalibrateArgs {
  RunArgs run;
  std::string out;
  int runs = 5, window = 20;
};

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %%", 100 * v);
  return buf;
}

int calibrate(const CalibrateArgs& a) {
  const RunConfig config = resolve_config(a.run);
  Report rank_report;
  if (is_launched_rank()) return run_and_write(config, a.out, rank_report).exit_code;  // one row of one run
  if (a.runs < 2) input_error("--runs", "at least 2 runs are needed to see how they disagree");
  if (a.window < 1) input_error("--window", "must be at least 1");
  check_writable_directory(a.out, "--out");
  std::vector<Report> reports;
  int code = 0;
  for (int k = 1; k <= a.runs; ++k) {
    std::cerr << "\n== calibrate: run " << k << " of " << a.runs << " ==\n";
    Report report;
    const std::string dir = a.out + "/run-" + std::to_string(k);
    const SweepOutcome done = run_and_write(config, dir, report);
    code = std::max(code, done.exit_code);
    std::cerr << "report: " << dir << "/report.json\n";
    if (done.exit_code >= 128) return done.exit_code;  // interrupted: no further runs, no noise estimate
    reports.push_back(std::move(report));
  }
  const RunKey key = run_key(reports.front(), a.out + "/run-1/report.json");
  const NoiseFile noise = estimate_noise(reports, key, stats::RegressionRule{}, a.window);
  write_file_atomic(a.out + "/noise.json", json_file_text(to_json(noise)));

  std::vector<std::vector<std::string>> rows = {
      {"scenario", "metric", "runs", "repeats", "CV of run medians", "CV of repeats", "noise floor",
       "min detectable change"}};
  for (const auto& [scenario, metrics] : noise.scenarios)
    for (const auto& [m, e] : metrics)
      rows.push_back({scenario, to_string(m), std::to_string(e.runs), std::to_string(e.repeats),
                      percent(e.cv_run_medians), percent(e.cv_repeats), percent(e.noise_floor),
                      percent(e.min_detectable_change)});
  std::cout << "## ftbench calibrate: " << a.runs << " A/A runs of preset " << key.preset << ", config "
            << key.config_hash << " on '" << key.machine << "'\n\n"
            << format_table(rows, {false, false, true, true, true, true, true, true}, TableStyle::markdown)
            << "\nnoise floor = 2 x CV of run medians; min detectable change = the smallest change the regress "
               "rule catches 95 % of the time against a window of "
            << a.window << " such runs.\nnoise: " << a.out << "/noise.json\n";
  return code;
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* sub = app.add_subcommand("calibrate", "A/A: run one configuration N times and write DIR/run-K/report.json "
                                              "and DIR/noise.json (the noise `regress --noise` uses)");
  add_run_flags(sub, a->run);
  sub->add_option("--runs", a->runs, "how many times to run the configuration (default 5)");
  sub->add_option("--out", a->out, "folder for run-K/ and noise.json")->required();
  sub->add_option("--window", a->window, "history window the minimum detectable change assumes (default 20)");
  return {sub, [a] { return calibrate(*a); }};
}

}  // namespace ftb
