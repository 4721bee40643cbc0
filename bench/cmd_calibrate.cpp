// ftbench calibrate [run flags] --runs N --out DIR: an A/A run. The same
// configuration runs N times, each in its own process (ftbench re-executes
// itself, so no run shares another's luck: thread placement, allocator,
// memory layout), each report in DIR/run-K/; DIR/noise.json holds the
// within- and between-run noise per scenario (reports/analysis/noise.h), the gating
// rule's false alarms over the runs' A/A pairs, and the minimum detectable
// change; `regress --noise` and `compare --noise` read it.
// `--reports R1 R2 ...` analyses runs made before instead of running.
// `--duet-file F ...` (A/A duet.json files, `ftbench duet`) prints both
// designs' minimum detectable slowdown side by side: the nightly rule at
// this set's noise, the duet at each file's measured pair sd.
#include <chrono>
#include <iostream>
#include <set>
#include <stdexcept>

#include <sys/wait.h>

#include "bench/commands.h"
#include "bench/power_duet.h"
#include "bench/run_flags.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/subprocess.h"
#include "core/base/text_format.h"
#include "reports/analysis/history.h"
#include "reports/analysis/noise.h"
#include "scenarios/parallel/rank_protocol.h"
#include "core/base/json_text.h"

namespace ftb {
namespace {

struct CalibrateArgs {
  RunArgs run;
  std::string out;
  std::vector<std::string> reports, duet_files;
  int runs = 5, window = 20;
};

std::string percent(double v) { return format_percent(v, "%.2f %%"); }

// One run in a fresh process: this binary with `ftbench run`'s flags; its
// console output goes to DIR/run.log.
int run_in_process(const CalibrateArgs& a, const std::string& dir) {
  std::vector<std::string> argv = {self_executable(), "run", "--out", dir};
  for (const auto& f : run_flag_args(a.run)) argv.push_back(f);
  const auto t0 = std::chrono::steady_clock::now();
  const Finished f = run_captured(argv, 7 * 24 * 3600.0);
  if (!f.started) throw std::runtime_error("calibrate: cannot start " + argv[0] + ": " + f.spawn_error);
  make_directories(dir);
  write_file_atomic(dir + "/run.log", f.out + f.err);
  std::cerr << "run took " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
            << " s; its output: " << dir << "/run.log\n";
  if (WIFSIGNALED(f.status)) return 128 + WTERMSIG(f.status);
  return WIFEXITED(f.status) ? WEXITSTATUS(f.status) : 1;
}

// The noise per scenario and metric as a table, then what the rules made of
// the A/A runs (every alarm a false one), on stdout.
void print_calibration(const CalibrateArgs& a, const std::vector<Report>& reports, const RunKey& key,
                       const NoiseFile& noise) {
  std::vector<std::vector<std::string>> rows = {{"scenario", "metric", "runs", "repeats", "between-run CV",
                                                 "within-run CV", "run-to-run CV", "between share",
                                                 "min detectable slowdown"}};
  for (const auto& [scenario, metrics] : noise.scenarios)
    for (const auto& [m, e] : metrics)
      rows.push_back({scenario, to_string(m), std::to_string(e.runs), std::to_string(e.repeats), percent(e.between_cv),
                      percent(e.within_cv), percent(e.run_cv), percent(e.between_share),
                      percent(e.min_detectable_change)});
  const AaCheck& aa = noise.aa;
  std::cout << "## ftbench calibrate: " << reports.size() << " A/A runs of preset " << key.preset << ", config "
            << key.config_hash << " on '" << key.machine << "'\n\n"
            << format_table(rows, {false, false, true, true, true, true, true, true, true}, TableStyle::markdown)
            << "\nCVs are sds of log values: within-run = one repeat around its run; run-to-run = a run's median "
               "between runs; between-run = the part of it no number of repeats removes; between share = its share "
               "of one repeat's variance. Min detectable slowdown: what the nightly rule catches 90 % of the time "
               "against "
            << a.window << " nights of history, with these " << noise.series
            << " scenario(s) in the report, each at its own noise (simulated through the rule, "
            << kMinDetectableTrials << " nights a point; `ftbench power --noise` prints the curves).\n\n"
            << "The rules on these runs (A/A: nothing changed, so every alarm is a false one):\n"
            << "- regress (each run as tonight, the other " << reports.size() - 1
            << " as its history): " << aa.regress_alarms << " of " << aa.regress_nights
            << " whole reports alarmed" << (aa.regress_alarmed.empty() ? "" : " (" + names_for_message(aa.regress_alarmed, 6) + ")")
            << (aa.regress_nights == 0 ? " (with " + std::to_string(reports.size()) +
                                             " runs no history reaches the rule's minimum of nights)"
                                       : std::string())
            << "\n- compare (every pair, one run a side, the run-to-run noise from the other runs): "
            << aa.compare_verdicts << " of " << aa.compare_pairs << " pairs with a faster/slower verdict"
            << (aa.compare_flagged.empty() ? "" : " (" + names_for_message(aa.compare_flagged, 6) + ")")
            << (aa.compare_pairs == 0 ? " (a pair needs two other runs to estimate the noise)" : "")
            << "\nnoise: " << a.out << "/noise.json\n";
}

// Both designs' minimum detectable slowdown (90 %) on this machine, one line
// per scenario and design: the nightly rule at this A/A set's throughput
// noise, the duet at each A/A duet file's measured pair sd.
void print_both_designs(const CalibrateArgs& a, const NoiseFile& noise,
                        const std::vector<MeasuredPair>& measured) {
  std::vector<std::vector<std::string>> rows = {
      {"scenario", "design", "measured on", "sd (run to run; duet: of a pair's log ratio)",
       "min detectable slowdown (90 %)"}};
  const DuetPowerArgs duet;  // the duet's default design: `ftbench duet`'s looks, alpha, same-risk, min effect
  std::set<std::string> names;
  for (const auto& [scenario, metrics] : noise.scenarios) names.insert(scenario);
  for (const auto& m : measured) names.insert(m.scenario);
  for (const auto& scenario : names) {
    if (const auto it = noise.scenarios.find(scenario); it != noise.scenarios.end())
      if (const auto e = it->second.find(Metric::train_samples_per_s); e != it->second.end())
        rows.push_back({scenario,
                        "nightly rule, " + std::to_string(a.window) + " nights of history, " +
                            std::to_string(e->second.repeats / std::max(1, e->second.runs)) + " repeat(s) a night",
                        std::to_string(e->second.runs) + " A/A runs (" + a.out + "/noise.json)",
                        percent(e->second.run_cv), percent(e->second.min_detectable_change)});
    for (const auto& m : measured)
      if (m.scenario == scenario)
        rows.push_back({scenario, m.mode == "duet" ? "duet, both at once" : "duet, one side after the other", m.file,
                        percent(m.pair_sd), percent(duet_min_detectable_at(duet, m.pair_sd))});
  }
  std::cout << "\n## Both designs on this machine: the smallest slowdown caught 90 % of the time\n\n"
            << format_table(rows, {false, false, false, true, true}, TableStyle::markdown)
            << "\nModelled: each a simulation of its design at the measured sd (the nightly rule: these runs' "
               "train_samples_per_s noise; the duet: its default design, looks "
            << duet.design.looks.front() << " to " << duet.design.looks.back() << " pairs, "
            << percent(duet.noise.outlier_share) << " of pairs with one side " << percent(duet.noise.outlier)
            << " off on top, `ftbench power --duet` prints its curves). The designs' runs may differ in preset, rows "
               "and repeats: each line names what it was measured on.\n";
}

int calibrate(const CalibrateArgs& a) {
  if (a.window < 1) input_error("--window", "must be at least 1");
  const std::vector<MeasuredPair> measured = measured_pair_sds(a.duet_files);  // bad files fail before any run
  std::vector<Report> reports;
  std::vector<std::string> where;
  int code = 0;
  if (!a.reports.empty()) {
    if (a.reports.size() < 2) input_error("--reports", "at least 2 runs are needed to see how they disagree");
    check_writable_directory(a.out, "--out");
    for (const auto& r : a.reports) {
      reports.push_back(read_report(r));
      where.push_back(r);
    }
  } else {
    const RunConfig config = resolve_config(a.run);  // bad flags fail here, before any run
    Report rank_report;
    if (is_launched_rank()) return run_and_write(config, a.out, rank_report).exit_code;  // one row of one run
    if (a.runs < 2) input_error("--runs", "at least 2 runs are needed to see how they disagree");
    check_writable_directory(a.out, "--out");
    for (int k = 1; k <= a.runs; ++k) {
      std::cerr << "\n== calibrate: run " << k << " of " << a.runs << " (its own process) ==\n";
      const std::string dir = a.out + "/run-" + std::to_string(k);
      const int rc = run_in_process(a, dir);
      if (rc >= 128) return rc;  // interrupted: no further runs, no noise estimate
      code = std::max(code, rc);
      reports.push_back(read_report(dir + "/report.json"));
      where.push_back(dir + "/report.json");
      std::cerr << "report: " << where.back() << "\n";
    }
  }
  const RunKey key = run_key(reports.front(), where.front());
  for (size_t i = 1; i < reports.size(); ++i) {
    const RunKey k = run_key(reports[i], where[i]);
    if (k.preset != key.preset || k.config_hash != key.config_hash)
      input_error(where[i], "another configuration than " + where.front() + "'s (preset '" + k.preset + "' config " +
                                k.config_hash + " vs '" + key.preset + "' " + key.config_hash + "): not an A/A set");
  }
  const stats::NightlyRule rule;
  NoiseFile noise = estimate_noise(reports, key, rule, a.window);
  set_min_detectable_changes(noise);
  noise.aa = aa_check(reports, rule);
  noise.has_aa = true;
  write_file_atomic(a.out + "/noise.json", json_file_text(to_json(noise)));

  print_calibration(a, reports, key, noise);
  if (!a.duet_files.empty()) print_both_designs(a, noise, measured);
  return code;
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* sub = app.add_subcommand("calibrate", "A/A: run one configuration N times and write DIR/run-K/report.json "
                                              "and DIR/noise.json (the noise `regress --noise` uses)");
  add_run_flags(sub, a->run);
  sub->add_option("--runs", a->runs, "how many separate processes run the configuration (default 5)");
  sub->add_option("--reports", a->reports, "analyse these runs' report.json files (one configuration) instead of "
                                           "running");
  sub->add_option("--out", a->out, "folder for run-K/ and noise.json")->required();
  sub->add_option("--window", a->window, "history window the minimum detectable change assumes (default 20)");
  sub->add_option("--duet-file", a->duet_files, "A/A duet.json files (`ftbench duet`): also print both designs' "
                                                "minimum detectable slowdown side by side");
  return {sub, [a] { return calibrate(*a); }};
}

}  // namespace ftb
