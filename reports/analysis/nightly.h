// The nightly gate: tonight's run against the earlier nights of the same
// machine, preset and config, one series per scenario (and metric), all
// series of one report judged together. In order: each night's level is the
// median of its log repeats; tonight is judged against the level since the
// series' last change point (change_points.h), so a step the history already
// shows is named, not failed again every night; each level's noise is the
// series' own spread of its nights moderated toward what the report's series
// share (moderated_variance.h), never below the within-run part, joined with
// a calibrate noise file where given, an outlying night left out; a
// one-sided t-test (Satterthwaite's df) of tonight's level, several runs
// tonight counted as independent runs, with Holm over the report's series at
// family_alpha; verdict.h's decide() says regressed, same or cannot tell
// (with what would settle it, modelled). The rule step by step, with its
// reasons: docs/statistics.md ("The nightly rule, step by step"); its rates:
// tests/test_nightly.cpp and tests/test_nightly_simulation.cpp.
//
// Pure: no LibTorch, no I/O. `ftbench regress` and `history show` call it.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "reports/analysis/change_points.h"
#include "reports/analysis/two_level.h"
#include "reports/analysis/statistics.h"
#include "reports/analysis/verdict.h"

namespace ftb::stats {

struct NightlyRule {
  double family_alpha = 0.005;        // Holm, over every series judged in one report
  double min_effect = 0.03;           // relative change that matters at all
  int min_nights = 3;                 // history nights needed before a series is judged
  double heterogeneity_alpha = 0.05;  // a series whose spread is this improbable for the pool keeps its own
  double outlier_alpha = 0.001;       // a history night this improbable for its series is left out of it
  double interval_level = 0.95;       // the change's interval: "same" needs it inside +-min_effect
  ChangePointOptions change_points;
};
std::string describe(const NightlyRule& rule);


struct NightSeries {
  std::vector<std::vector<double>> nights;  // the history, oldest first: each night's repeats
  std::vector<double> tonight;              // tonight's repeats
  std::vector<std::vector<double>> reruns;  // tonight's further runs (each its repeats), judged with it
  Direction direction = Direction::higher_is_better;
  std::optional<KnownNoise> noise;          // a calibrate noise file's run-to-run sd for this series
  // The change "same" must rule out: 0 = the rule's min_effect; a calibrate
  // noise file's minimum detectable change of this series (noise.h) where
  // larger: "same" then says no change this rule could have caught.
  double same_within = 0;
};

struct NightVerdict {
  Verdict outcome = Verdict::insufficient;  // verdict.h: worse is a regression
  int history_nights = 0;
  int reference_nights = 0;  // nights since the last change point (tonight's level's reference)
  std::vector<int> reference;  // which history nights (index) those are
  int tonight_runs = 1;        // runs behind tonight's level
  double tonight_level = std::numeric_limits<double>::quiet_NaN();     // log
  double reference_level = std::numeric_limits<double>::quiet_NaN();   // log, mean of the reference nights
  double change = std::numeric_limits<double>::quiet_NaN();            // exp(tonight - reference) - 1
  double se = std::numeric_limits<double>::quiet_NaN();                // of tonight - reference, log
  double df = 0;
  double p_worse = std::numeric_limits<double>::quiet_NaN();   // one-sided, unadjusted
  double p_better = std::numeric_limits<double>::quiet_NaN();
  bool own_spread = false;    // an outlier among the report's series: judged on its own spread
  int outlying_night = -1;    // a history night (index) left out of the spread and reference as an outlier
  double outlying_p = std::numeric_limits<double>::quiet_NaN();  // its p (Bonferroni over the nights)
  // verdict.h's reason: why the verdict is what it is (called, settled, or
  // open: interval_reaches, beyond_not_called; no_noise_estimate unjudged).
  Ruling why = Ruling::no_noise_estimate;
  // The change's interval at rule.interval_level (relative; NaN where not judged).
  double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
  // A cannot_tell: what would settle it at the measured noise, if the
  // estimate holds (the interval inside or wholly beyond +-min_effect): more
  // runs tonight (`regress --current R1 R2 ...`) or more nights of history
  // on this level with tonight's runs as they are; -1 where none within
  // kMaxMoreRuns / kMaxMoreNights does. Where neither alone does, the
  // fewest of both together, as many of each (jointly: then both are needed).
  int more_runs = -1, more_nights = -1;
  bool jointly = false;
  double same_within = 0;  // the effect "same" ruled out, or a cannot tell could not (relative)
  double within_sd = std::numeric_limits<double>::quiet_NaN(), between_sd = std::numeric_limits<double>::quiet_NaN();
  // Change points over history + tonight (index into the nights; tonight is
  // index history_nights), for "level changed at ..." notes.
  std::vector<ChangePoint> steps;
  std::vector<int> left_out;  // history nights (index) without a value > 0: not judged with
  std::string note;  // why insufficient; history nights left out
};

std::vector<NightVerdict> judge_nights(const std::vector<NightSeries>& series, const NightlyRule& rule = {});

inline constexpr int kMaxMoreRuns = 50, kMaxMoreNights = 60;

// A cannot_tell's reason in words: "the change's 95 % interval -6.1 to +2.0 %
// still includes changes beyond +-3 %; 4 more runs tonight or 9 more nights
// would settle it at this noise". Empty for other outcomes.
std::string cannot_tell_text(const NightVerdict& v, const NightlyRule& rule);

}  // namespace ftb::stats
