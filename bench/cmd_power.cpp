// ftbench power: what the nightly gate can catch with a given noise, nights
// and repeats (reports/analysis/power.h): the detection curve by simulation
// through the rule `regress` runs, and the whole report's false alarms.
// `--noise noise.json` takes the within- and between-run noise of one
// scenario from a calibration.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "bench/commands.h"
#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "reports/analysis/power.h"
#include "reports/analysis/noise.h"

namespace ftb {
namespace {

struct PowerArgs {
  stats::PowerSetup setup;
  std::string noise, scenario = "baseline";
  std::vector<double> slowdowns = {0.0, 0.03, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.30};
};

std::string pct(double v, const char* fmt = "%.1f %%") {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, 100 * v);
  return buf;
}

int power(PowerArgs a) {
  auto& s = a.setup;
  if (!a.noise.empty()) {
    const NoiseFile n = read_noise_file(a.noise);
    const NoiseEstimate* e = find_noise(n, a.scenario, Metric::train_samples_per_s);
    if (!e) input_error("--scenario", "no estimate of '" + a.scenario + "' in " + a.noise);
    s.within = e->within_cv;
    s.between = e->between_cv;
  }
  if (s.scenarios < 1) input_error("--scenarios", "must be at least 1");
  if (s.nights < 1) input_error("--nights", "must be at least 1");
  if (s.repeats < 1) input_error("--repeats", "must be at least 1");
  if (!(s.within >= 0) || !(s.between >= 0)) input_error("--within", "noise must be >= 0");
  if (s.trials < 10) input_error("--trials", "must be at least 10");
  for (double d : a.slowdowns)
    if (!(d >= 0 && d < 1)) input_error("--slowdowns", "each in [0, 1)");
  const auto curve = stats::detection_curve(s, a.slowdowns);
  std::vector<std::vector<std::string>> rows = {{"slowdown of one scenario", "caught", "whole report alarmed"}};
  for (const auto& p : curve) rows.push_back({pct(p.slowdown), pct(p.caught), pct(p.whole_report_alarm)});
  std::cout << "## ftbench power: the nightly rule by simulation\n\n"
            << s.scenarios << " scenario(s) a report, " << s.nights << " nights of history, " << s.repeats
            << " repeats a night; noise (log sd): within a run " << pct(s.within, "%.2f %%") << " a repeat, between "
            << "nights " << pct(s.between, "%.2f %%") << " (half shared by the night's scenarios); " << s.trials
            << " trials a row, seed " << s.seed << ".\n\n"
            << format_table(rows, {true, true, true}, TableStyle::markdown)
            << "\nRule: " << stats::describe(s.rule) << ". The 0 % row's whole-report rate is the false-alarm rate.\n";
  return 0;
}

}  // namespace

Command add_power_command(CLI::App& app) {
  auto a = std::make_shared<PowerArgs>();
  auto* sub = app.add_subcommand("power", "what the nightly gate catches: detection curve of `regress`'s rule by "
                                          "simulation for a given noise, nights, repeats and scenarios");
  sub->add_option("--within", a->setup.within, "sd of one repeat within a run, relative (default 0.03)");
  sub->add_option("--between", a->setup.between, "sd of a night's luck, relative (default 0.02)");
  sub->add_option("--nights", a->setup.nights, "history nights (default 8)");
  sub->add_option("--repeats", a->setup.repeats, "repeats a night (default 5)");
  sub->add_option("--scenarios", a->setup.scenarios, "scenarios in a report, Holm's family (default 10)");
  sub->add_option("--trials", a->setup.trials, "simulated nights per row (default 2000)");
  sub->add_option("--seed", a->setup.seed, "simulation seed");
  sub->add_option("--slowdowns", a->slowdowns, "slowdowns to simulate (fractions)")->delimiter(',');
  sub->add_option("--noise", a->noise, "noise.json from `ftbench calibrate`: within and between from it");
  sub->add_option("--scenario", a->scenario, "which scenario of --noise (default baseline)");
  return {sub, [a] { return power(*a); }};
}

}  // namespace ftb
