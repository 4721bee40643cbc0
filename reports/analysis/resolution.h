// "No change" or "not enough data to see one"? A rule that did not call a
// change (no test rejected "same", or the change came out inside the
// minimum effect) may say "same" only where the change's interval rules out
// every change beyond +-min_effect. Where it still includes one, the honest
// answer is "cannot tell", and it names what would settle it: how many
// further runs (of either side) would narrow the interval, from the noise
// the runs measured, below +-min_effect. One function, shared by compare
// (rows and geometric means), regress against baseline runs and the nightly
// rule (reports/analysis/nightly.h), so they all say it alike.
//
// Issue 36: `regress` with 3 baseline runs (df 2) called a -50 % change
// "same" (p 0.01 > Holm's 0.005); its interval ran from about -85 % to +60 %.
//
// The runs it names are modelled, not measured: the planned half-width is
// t_{(1 + level) / 2, df} * sqrt(var_a / k_a + var_b / k_b) with the measured
// variances, and df Satterthwaite's at the planned run counts. The next runs'
// noise may come out larger, and the estimate moves too; the verdict is
// taken again when they are in. No I/O, deterministic.
#pragma once

#include <limits>
#include <string>

namespace ftb::stats {

// One side of a comparison: the variance of one run's level (log^2, as
// measured), its runs now, and the df of that variance estimate now (its
// runs' k - 1 plus a noise file's; infinite when known exactly; a side of
// one run whose variance is the other side's: that side's df). Further runs
// of a side add their df to it.
struct SideNoise {
  double var = std::numeric_limits<double>::quiet_NaN();
  int runs = 0;
  double df = 0;
};

// What a verdict's interval says about the minimum effect, and what would
// settle it where it cannot.
struct Resolution {
  // The interval [low, high] (log of the ratio) lies within
  // [log(1 - min_effect), log(1 + min_effect)]: "same" may be said.
  bool resolved = false;
  // Otherwise: further runs of each side (greedy, one run at a time where it
  // narrows the interval most: the fewest runs in all) at which the planned
  // half-width falls below settling_half_width (where the runs as they are
  // already reach that and the rule still did not call it, an interval
  // wholly beyond the effect at its stricter family level: half the width);
  // reachable false when no plan
  // of at most `max_more` further runs in all gets there (or nothing measured
  // the noise: var NaN).
  int more_a = 0, more_b = 0;
  bool reachable = false;
  double half_width = std::numeric_limits<double>::quiet_NaN();          // of the interval now (log)
  double planned_half_width = std::numeric_limits<double>::quiet_NaN();  // at the planned runs (log)
};

// The two halves of that answer every rule shares (compare, regress against
// baseline runs, the nightly rule: each plans runs with its own noise model,
// toward the same target):
//   within_effect: [low, high] (log of the ratio) lies inside
//     (log(1 - min_effect), log(1 + min_effect)): "same" may be said;
//   settling_half_width: how narrow the interval must get, around the
//     estimate `diff` (log), to fall on one side of +-min_effect if the
//     estimate holds: its distance to the nearer bound, at least a quarter
//     of the effect (an estimate on the bound does not ask for ever more runs).
bool within_effect(double low, double high, double min_effect);
double settling_half_width(double diff, double min_effect);

// The rule's third answer. `low`, `high`: the interval of the log change at
// the rule's level (NaN: no interval, unresolved and unplanned);
// `min_effect`: the relative change that matters (compare's 2 %, the nightly
// rule's 3 %, or calibrate's minimum detectable change); `level`: the
// interval's (0.95).
Resolution resolve(double low, double high, const SideNoise& a, const SideNoise& b, double min_effect,
                   double level = 0.95, int max_more = 200);

// "4 more runs of A and 2 of B" (a_name, b_name name the sides: "A", "B";
// "baseline runs", "runs tonight"); "more than N further runs (modelled)"
// when max_more runs of both sides together would not settle it. Empty when
// resolved.
std::string settle_text(const Resolution& r, const std::string& a_name, const std::string& b_name);

}  // namespace ftb::stats
