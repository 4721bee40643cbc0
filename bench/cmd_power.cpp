// ftbench power: what the nightly gate can catch with a given noise, nights
// and repeats (reports/analysis/power.h): the detection curve by simulation
// through the rule `regress` runs, and the whole report's false alarms.
// `--noise noise.json` simulates every scenario of a calibration with its own
// within- and between-run noise (and the calibration's repeats a run unless
// --repeats is given): the whole report's false alarms, and each scenario's
// detection when it alone slows down.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "bench/commands.h"
#include "bench/power_duet.h"
#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "reports/analysis/power.h"
#include "reports/analysis/noise.h"

namespace ftb {
namespace {

struct PowerArgs {
  stats::PowerSetup setup;
  std::string noise;
  bool repeats_given = false;
  std::vector<double> slowdowns = {0.0, 0.03, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.30};
  DuetPowerArgs duet;
};

std::string pct(double v, const char* fmt = "%.1f %%") { return format_percent(v, fmt); }

// Every scenario of a calibration with its own noise (train_samples_per_s: the gated metric).
void noise_from_file(PowerArgs& a) {
  const stats::PowerSetup calibrated = calibrated_power_setup(read_noise_file(a.noise), Metric::train_samples_per_s);
  if (calibrated.noise.empty()) input_error(a.noise, "no train_samples_per_s estimate of any scenario");
  a.setup.noise = calibrated.noise;
  if (!a.repeats_given) a.setup.repeats = calibrated.repeats;
}

void check(const PowerArgs& a) {
  const auto& s = a.setup;
  if (s.scenarios < 1) input_error("--scenarios", "must be at least 1");
  if (s.nights < 1) input_error("--nights", "must be at least 1");
  if (s.repeats < 1) input_error("--repeats", "must be at least 1");
  if (!(s.within >= 0) || !(s.between >= 0)) input_error("--within", "noise must be >= 0");
  if (!(s.shared >= 0 && s.shared <= 1)) input_error("--shared", "a share in [0, 1]");
  if (!(s.outlier > -1 && s.outlier < 10)) input_error("--outlier", "a relative shift above -1");
  if (s.trials < 10) input_error("--trials", "must be at least 10");
  for (double d : a.slowdowns)
    if (!(d >= 0 && d < 1)) input_error("--slowdowns", "each in [0, 1)");
}

std::string false_alarm_line(const stats::PowerPoint& p) {
  return "Whole-report false alarms (nothing slowed): " + std::to_string(p.whole_report_alarms) + " of " +
         std::to_string(p.trials) + " nights, " + pct(p.alarm_rate(), "%.2f %%") + " (one-sided 95 % upper bound " +
         pct(stats::rate_upper_bound(p.whole_report_alarms, p.trials), "%.2f %%") + ").\n";
}

int power(PowerArgs a) {
  if (!a.noise.empty()) noise_from_file(a);
  check(a);
  const auto& s = a.setup;
  const auto scenarios = s.scenario_noise();
  std::cout << "## ftbench power: the nightly rule by simulation\n\n" << scenarios.size() << " scenario(s) a report, "
            << s.nights << " nights of history, " << s.repeats << " repeats a night; ";
  if (a.noise.empty())
    std::cout << "noise (log sd): within a run " << pct(s.within, "%.2f %%") << " a repeat, between nights "
              << pct(s.between, "%.2f %%");
  else
    std::cout << "each scenario's noise from " << a.noise;
  std::cout << " (" << pct(s.shared, "%.0f %%") << " of the between-night variance shared by the night's scenarios)";
  if (s.outlier != 0)
    std::cout << "; one history night (mid-window) of another scenario than the slowed one " << pct(s.outlier, "%+.0f %%");
  std::cout << "; " << s.trials << " trials a row, seed " << s.seed << ".\n\n";
  if (a.noise.empty()) {
    const auto curve = stats::detection_curve(s, a.slowdowns);
    std::vector<std::vector<std::string>> rows = {{"slowdown of one scenario", "caught", "whole report alarmed"}};
    for (const auto& p : curve) rows.push_back({pct(p.slowdown), pct(p.caught_rate()), pct(p.alarm_rate())});
    std::cout << format_table(rows, {true, true, true}, TableStyle::markdown) << "\n";
    if (!curve.empty() && curve[0].slowdown == 0) std::cout << false_alarm_line(curve[0]);
  } else {
    std::vector<double> slow;
    for (double d : a.slowdowns)
      if (d > 0) slow.push_back(d);
    std::vector<std::string> head = {"scenario slowed", "within", "between"};
    for (double d : slow) head.push_back("caught at " + pct(d, "%.3g %%"));
    std::vector<std::vector<std::string>> rows = {head};
    for (size_t i = 0; i < scenarios.size(); ++i) {
      std::vector<std::string> row = {scenarios[i].name, pct(scenarios[i].within, "%.2f %%"),
                                      pct(scenarios[i].between, "%.2f %%")};
      for (const auto& p : stats::detection_curve(s, slow, static_cast<int>(i))) row.push_back(pct(p.caught_rate()));
      rows.push_back(row);
    }
    std::cout << format_table(rows, std::vector<bool>(head.size(), true), TableStyle::markdown) << "\n"
              << false_alarm_line(stats::detection_curve(s, {0.0})[0]);
  }
  std::cout << "\nRule: " << stats::describe(s.rule) << ".\n";
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
  sub->add_option("--repeats", a->setup.repeats, "repeats a night (default 5; with --noise the calibration's)")
      ->each([a](const std::string&) { a->repeats_given = true; });
  sub->add_option("--scenarios", a->setup.scenarios, "scenarios in a report, Holm's family (default 10)");
  sub->add_option("--shared", a->setup.shared, "share of the between-night variance common to a night's scenarios "
                                               "(default 0.5)");
  sub->add_option("--outlier", a->setup.outlier, "one mid-window history night of another scenario shifted by this "
                                                 "(e.g. -0.4: 40 % slower; default none)");
  sub->add_option("--trials", a->setup.trials, "simulated nights per row (default 2000)");
  sub->add_option("--seed", a->setup.seed, "simulation seed");
  sub->add_option("--slowdowns", a->slowdowns, "slowdowns to simulate (fractions)")->delimiter(',');
  sub->add_option("--noise", a->noise, "noise.json from `ftbench calibrate`: every scenario with its own within- "
                                       "and between-run noise");
  add_power_duet_flags(sub, a->duet);
  return {sub, [a] { return a->duet.on ? power_duet(a->duet) : power(*a); }};
}

}  // namespace ftb
