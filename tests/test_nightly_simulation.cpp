// The nightly gate held to its stated rates on noise as uneven as real
// machines give, by seeded simulation through the real judge_nights (via
// reports/analysis/power.h, the simulation `ftbench power` prints): whole-
// report false alarms <= 1 % of A/A nights, with the exact one-sided 95 %
// upper bound <= 1.5 %, and a 15 % slowdown of one scenario caught in >= 90 %
// of nights. tools/nightly_simulation.sh prints the same settings, seeds and
// trials as the table in docs/statistics.md.
//
// How these tests fail on the rule before empirical Bayes: the pooled
// between-night variance kept the outlying scenario in the pool (detection
// with a -40 % night elsewhere fell to ~1 %), the quieter pool judged the
// noisier scenarios (aa-cpu-sync's calibration: ~2.7 % false alarms), and a
// clipped between-night estimate on 3 nights took the within-run df (~1.9 %).
#include <doctest/doctest.h>

#include <string>

#include "reports/analysis/noise.h"
#include "reports/analysis/power.h"
#include "reports/record/report.h"

using namespace ftb;
using namespace ftb::stats;

namespace {

constexpr int kTrials = 2000;

struct Setting {
  std::string name;
  PowerSetup setup;
  bool needs_detection = false;  // a 15 % slowdown must be caught >= 90 %
};

PowerSetup defaults() {
  PowerSetup p;
  p.trials = kTrials;
  return p;
}

// A committed calibration: every scenario with its own within and between sd, its repeats a run.
PowerSetup from_calibration(const std::string& dir) {
  PowerSetup p = calibrated_power_setup(read_noise_file(std::string(FTB_RESULTS_DIR) + "/" + dir + "/noise.json"),
                                        Metric::train_samples_per_s);
  p.trials = kTrials;
  return p;
}

std::vector<Setting> settings() {
  std::vector<Setting> s;
  s.push_back({"homogeneous: 10 scenarios, 2 % between, 3 % within, half shared, 8 nights", defaults(), true});
  for (const char* dir : {"aa-cpu-2026-12-01", "aa-cpu-sync-2026-12-01", "aa-cpu-malloc-default-2026-12-01"})
    s.push_back({std::string("calibration ") + dir, from_calibration(dir), false});
  PowerSetup mixed = defaults();
  for (int i = 0; i < 10; ++i) mixed.noise.push_back({"s" + std::to_string(i), 0.03, i < 2 ? 0.04 : 0.02});
  s.push_back({"2 scenarios at 4 % between, 8 at 2 %", mixed, false});
  PowerSetup apart = defaults();
  apart.shared = 0;
  s.push_back({"no luck shared by the night's scenarios", apart, true});
  PowerSetup together = defaults();
  together.shared = 0.9;
  s.push_back({"90 % of the night's luck shared", together, false});
  PowerSetup outlier = defaults();
  outlier.outlier = -0.4;
  s.push_back({"one -40 % night of another scenario mid-window", outlier, true});
  // Issue 36 (d): with few scenarios, the scenario with the outlying night
  // left the pool too small to share (fewer than 3 series): every scenario
  // fell back to its own 7 df, and 3 scenarios caught a 15 % slowdown in
  // 89.6 % of nights instead of 94.9 %. The night is now left out of its own
  // series instead.
  for (int scenarios : {3, 4}) {
    PowerSetup few = outlier;
    few.scenarios = scenarios;
    s.push_back({"one -40 % night of another scenario mid-window, " + std::to_string(scenarios) + " scenarios", few,
                 true});
  }
  PowerSetup short3 = defaults();
  short3.nights = 3;
  s.push_back({"3-night history", short3, false});
  PowerSetup one3 = defaults();
  one3.scenarios = 1;
  one3.nights = 3;
  s.push_back({"3-night history, one scenario", one3, false});
  return s;
}

}  // namespace

TEST_CASE("nightly simulation: whole-report false alarms <= 1 % (upper bound <= 1.5 %) on uneven noise") {
  for (const auto& s : settings()) {
    const auto c = detection_curve(s.setup, {0.0, 0.15});
    const double upper = rate_upper_bound(c[0].whole_report_alarms, c[0].trials);
    MESSAGE(s.name << ": false alarms " << c[0].whole_report_alarms << " of " << c[0].trials << " (upper "
                   << 100 * upper << " %), 15 % slowdown of scenario 1 caught " << 100 * c[1].caught_rate() << " %");
    CHECK(c[0].alarm_rate() <= 0.01);
    CHECK(upper <= 0.015);
    if (s.needs_detection) CHECK(c[1].caught_rate() >= 0.90);
  }
}

TEST_CASE("nightly simulation: the scenario with the outlying night does not alarm, the others stay sharp") {
  PowerSetup p = defaults();
  p.outlier = -0.4;
  // Slowing scenario 0 puts the outlying night on scenario 1; slowing 5 puts it on 6.
  for (int slowed : {0, 5}) {
    const auto c = detection_curve(p, {0.0, 0.15}, slowed);
    CHECK(c[0].alarm_rate() <= 0.01);
    CHECK(c[1].caught_rate() >= 0.90);
  }
  // Issue 36 (d): the outlying night costs no scenario its detection. With
  // 3 and 4 scenarios and the same draws, the slowdown is caught within 1.5
  // points of the same nights without it (before: 89.6 against 94.9 % with 3).
  for (int scenarios : {3, 4}) {
    PowerSetup few = p;
    few.scenarios = scenarios;
    for (int slowed : {0, 1}) {
      const auto with = detection_curve(few, {0.0, 0.15}, slowed);
      few.outlier = 0;
      const auto without = detection_curve(few, {0.15}, slowed);
      few.outlier = p.outlier;
      MESSAGE(scenarios << " scenarios, scenario " << slowed + 1 << " slowed 15 %: caught " << 100 * with[1].caught_rate()
                        << " % beside the outlying night, " << 100 * without[0].caught_rate() << " % without; A/A "
                        << with[0].whole_report_alarms << " of " << with[0].trials);
      CHECK(with[0].alarm_rate() <= 0.01);
      CHECK(with[1].caught_rate() >= 0.90);
      CHECK(with[1].caught_rate() >= without[0].caught_rate() - 0.015);
    }
  }
}

TEST_CASE("calibrate's minimum detectable slowdown is what power catches 90 % of the time") {
  // The committed A/A runs of aa-cpu-2026-12-01, estimated as `calibrate --reports` does, with an 8-night window.
  std::vector<Report> runs;
  for (int k = 1; k <= 6; ++k)
    runs.push_back(read_report(std::string(FTB_RESULTS_DIR) + "/aa-cpu-2026-12-01/run-" + std::to_string(k) +
                               "/report.json"));
  NoiseFile n = estimate_noise(runs, run_key(runs[0], "aa-cpu"), NightlyRule{}, /*window=*/8);
  set_min_detectable_changes(n);
  // The same family through power, with other draws (another seed) and more of them.
  PowerSetup p = from_calibration("aa-cpu-2026-12-01");
  p.seed = 7;
  int i = 0;
  for (const auto& [scenario, metrics] : n.scenarios) {
    const double mdc = metrics.at(Metric::train_samples_per_s).min_detectable_change;
    REQUIRE(p.noise[static_cast<size_t>(i)].name == scenario);
    const auto c = detection_curve(p, {mdc, mdc - 0.03}, i);
    MESSAGE(scenario << ": min detectable " << 100 * mdc << " %, caught there " << 100 * c[0].caught_rate()
                     << " %, 3 points below " << 100 * c[1].caught_rate() << " %");
    if (mdc < 1 && mdc > NightlyRule{}.min_effect + 0.03) {
      CHECK(c[0].caught_rate() >= 0.86);
      CHECK(c[0].caught_rate() <= 0.97);
      CHECK(c[1].caught_rate() < 0.90);
    }
    ++i;
  }
}


// The confirmation workflow docs/nightly.md shows (`regress --current R1 R2`
// after a first alarm): the first run judged alone; on an alarm, one more
// run, and the night alarms only if both runs judged together (the mean of
// their levels, a run level's variance over 2) alarm too. The rates below are
// the ones docs/statistics.md quotes (simulated, this seed). The test fails if,
// with independent reruns (luck of their own, the rule's assumption), the
// workflow's whole-report false alarms exceed 0.2 % (a confirmation that does
// not take effect leaves the first run's 0.44 %), or a 15 % slowdown of one
// scenario is caught in under 90 % of the homogeneous nights; and if a rerun
// that shares half the first run's luck (the same noisy neighbour) does not
// confirm more false alarms than an independent one (it must: the doc warns
// of it), or more than the one-run rule's 0.5 %.
TEST_CASE("nightly simulation: a confirmation rerun after a first alarm (the rerun workflow)") {
  constexpr int kRerunTrials = 20000;
  struct Case {
    std::string name;
    PowerSetup setup;
  };
  std::vector<Case> cases;
  PowerSetup homogeneous = defaults();
  cases.push_back({"homogeneous: 10 scenarios, 2 % between, 3 % within, half shared, 8 nights", homogeneous});
  cases.push_back({"calibration aa-cpu-sync-2026-12-01", from_calibration("aa-cpu-sync-2026-12-01")});
  PowerSetup sharing = defaults();
  sharing.rerun_shares = 0.5;
  cases.push_back({"homogeneous, the rerun sharing half of the first run's between-night luck", sharing});
  double independent = -1;  // the homogeneous setting's confirmed rate with independent reruns
  for (auto& c : cases) {
    c.setup.trials = c.name.rfind("homogeneous", 0) == 0 ? kRerunTrials : kRerunTrials / 2;
    c.setup.reruns = 1;
    const auto curve = detection_curve(c.setup, {0.0, 0.15});
    const auto& none = curve[0];
    const double upper = rate_upper_bound(none.whole_report_alarms, none.trials);
    MESSAGE(c.name << " (simulated, " << c.setup.trials << " nights, seed " << c.setup.seed << "): first run alarms "
                   << none.first_alarms << " (" << 100.0 * none.first_alarms / none.trials << " %), confirmed by one "
                   << "rerun " << none.whole_report_alarms << " (" << 100 * none.alarm_rate() << " %, upper "
                   << 100 * upper << " %); 15 % slowdown of scenario 1 caught " << 100 * curve[1].caught_rate()
                   << " % (first run alone " << 100.0 * curve[1].first_alarms / curve[1].trials << " % alarmed)");
    CHECK(none.whole_report_alarms <= none.first_alarms);
    if (c.setup.rerun_shares == 0) {
      CHECK(none.alarm_rate() <= 0.002);
      if (independent < 0) independent = none.alarm_rate();
    } else {
      // A rerun that shares the first run's luck confirms its false alarms
      // more often: what docs/nightly.md warns of, measured.
      CHECK(none.alarm_rate() > independent);
      CHECK(none.alarm_rate() <= 0.005);
    }
    if (c.name.rfind("homogeneous", 0) == 0) CHECK(curve[1].caught_rate() >= 0.90);
  }
  // Without reruns the workflow is the one-run rule exactly.
  PowerSetup plain = defaults();
  const auto once = detection_curve(plain, {0.0});
  CHECK(once[0].first_alarms == once[0].whole_report_alarms);
}
