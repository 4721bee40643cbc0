// The one verdict on a change, and the one rule that decides it (issue 41).
//
// Every judge (compare's rows and geometric means, regress against baseline
// runs, the nightly rule, and those built on them: the accuracy paired judge
// of issue 47, the duet nightly of issue 42) hands decide() the same facts:
// the interval of the change (log of the ratio B / A, tonight / reference),
// the minimum effect that matters, whether the family's test (Holm over the
// report's rows at the family level) rejected "no change" toward the side the
// estimate lies on, the metric's direction, and, optionally, calibrate's
// minimum detectable change. decide() returns the verdict and a structured
// Reason; the Markdown, JSON and charts render the Reason, never a parsed
// note string.
//
// The rule, once:
//   insufficient  nothing estimated the noise (no interval, no test);
//   worse/better  the family's test rejected "no change" and the estimate
//                 lies at or beyond min_effect (|ratio - 1| >= min_effect) on
//                 the bad / good side of `direction`;
//   same          otherwise, where the interval lies inside +-same_within,
//                 same_within = max(min_effect, min_detectable_change): a
//                 "same" rules out what the rule could have caught;
//   cannot_tell   otherwise, with what rules "same" out (the interval still
//                 reaches beyond +-same_within, or lies entirely beyond it but
//                 the test at the family's level did not call it) and what
//                 would settle it (resolution.h: further runs, modelled).
// What differs between judges is what they hand decide(), by design: the
// family's test is compare's two-sided one (its question: faster or slower,
// either way a finding) and the nightly rule's and regress's one-sided one
// toward the side the change lies on (their question: did tonight get worse,
// or better); min_detectable_change is calibrate's, simulated through the
// nightly rule's design (history nights), so only that rule and regress pass
// it; compare's design (runs against runs) passes 0.
// No I/O, deterministic.
#pragma once

#include "reports/analysis/resolution.h"
#include "reports/analysis/statistics.h"

#include <limits>
#include <string>

namespace ftb::stats {

// Strings only at the edges: each output maps it to the word it prints today.
enum class Verdict { worse, better, same, cannot_tell, insufficient };

// Why a verdict is what it is: the one reason every view renders (none
// parses a note). A row stays open (cannot tell, insufficient) for want of
// a run-to-run noise estimate, or with an interval too wide to settle
// (interval_reaches, beyond_not_called: too few runs to tell "no change"
// from "not enough data to see one": resolution.h).
enum class Ruling {
  called,             // worse/better: rejected and beyond min_effect
  settled,            // same: the interval lies inside +-same_within
  no_noise_estimate,  // insufficient: nothing estimated the run-to-run noise
  interval_reaches,   // cannot tell: the interval still includes a change beyond +-same_within
  beyond_not_called,  // cannot tell: the interval lies entirely beyond, the family's test did not call it
};

// What decide() was given, as the outputs state it.
struct Change {
  double estimate = std::numeric_limits<double>::quiet_NaN();  // log of the ratio
  double low = std::numeric_limits<double>::quiet_NaN();       // the interval (log); NaN: none
  double high = std::numeric_limits<double>::quiet_NaN();
  double level = 0.95;  // the interval's coverage
  SideNoise a, b;       // each side's noise, to plan the runs that would settle it
};

struct Judgement {
  double min_effect = 0.03;      // relative: 0.03 is 3 %
  bool rejected = false;         // the family's test (Holm, one family flag) rejected "no change"
  Direction direction = Direction::higher_is_better;
  double min_detectable_change = 0;  // calibrate's; 0: none
};

// The structured reason every view renders.
struct Reason {
  Ruling ruling = Ruling::no_noise_estimate;
  double estimate = std::numeric_limits<double>::quiet_NaN();  // relative change: ratio - 1
  double low = std::numeric_limits<double>::quiet_NaN();       // relative
  double high = std::numeric_limits<double>::quiet_NaN();
  double level = 0.95;
  double min_effect = 0.03;
  double same_within = 0.03;  // max(min_effect, min_detectable_change)
  Resolution settle;          // what would settle it (cannot_tell)
};

struct Decision {
  Verdict verdict = Verdict::insufficient;
  Reason reason;
};

Decision decide(const Change& c, const Judgement& j);

// The open rulings, as the outputs name them: interval_too_wide() for
// interval_reaches and beyond_not_called; cannot_tell_reason() "no noise
// estimate", "interval too wide", or "" for a called or settled row
// (regress.json's and compare.json's cannot_tell_reason).
bool interval_too_wide(Ruling r);
std::string cannot_tell_reason(Ruling r);

// One line, for Markdown and notes: "the 95 % interval of the change, -9.5 %
// to -3.5 %, lies entirely beyond -3 %, but the test at the family's level
// did not call it".
std::string explain(const Reason& r);

}  // namespace ftb::stats
