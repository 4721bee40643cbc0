// The duet's paired judge (issue 42): both sides of a nightly (tonight's
// build and a reference) ran at once, on disjoint cores, pair after pair, so
// the noise the two sides share (the machine's load, its frequency, the
// neighbours) cancels in each pair's log ratio log(B / A). The change is the
// mean of those ratios over pairs; its interval is Student's t over pairs
// (pairs are the independent unit; a pair's two rows share nothing with the
// next pair's).
//
// Within a budget: a job judges at a few planned looks (after 3, 5, 8 and 12
// pairs by default) and stops at the first look where every row is settled
// (worse, better or same), or when the budget leaves no room for the next
// look. Two error rates hold however early it stops, each spent evenly over
// the planned looks (Bonferroni over looks; a job that stops early spends
// less):
//  - a false alarm (worse or better on an unchanged build, any row, any
//    look) at most family_alpha: each look's paired t tests at
//    family_alpha / looks, Holm over the rows;
//  - "same" on a row whose true change is min_effect or more at most
//    same_risk: "same" where the look's interval at 1 - 2 same_risk / looks
//    lies inside +-min_effect (two one-sided tests at same_risk / looks each).
// tests/test_duet.cpp measures both on simulated jobs with noise as uneven as
// this VM's.
//
// Each row's verdict is verdict.h's decide(): worse/better where the look's
// test rejected "no change" and the estimate lies beyond min_effect; same
// where the interval lies inside +-min_effect (it rules out anything beyond);
// cannot tell otherwise, with the interval: what this job ruled out.
// No I/O, deterministic.
#pragma once

#include "reports/analysis/verdict.h"

#include <vector>

namespace ftb::stats {

struct DuetDesign {
  double family_alpha = 0.01;  // whole-job false alarms, over every row and every look
  double same_risk = 0.10;     // a change of min_effect or more read as "same", per row, over the job
  double min_effect = 0.03;    // relative: 0.03 is 3 %
  std::vector<int> looks = {3, 5, 8, 12};  // the pair counts judged at; the last is the most pairs a job runs
  double look_alpha() const;      // family_alpha / looks
  double interval_level() const;  // 1 - 2 same_risk / looks (0.95 at the defaults)
};

// One row at one look: the pairs' log ratios summarised, and the verdict.
struct PairedChange {
  int pairs = 0;
  double mean = 0, sd = 0;  // of log(B / A) over pairs
  double p = 1;             // two-sided paired t, before Holm
  Decision decision;
};

// A row through a job: its latest judgement, final from the look that
// settled it on (a row called or settled is not judged again: the later
// looks' Holm family holds the rows still open).
struct DuetRow {
  PairedChange change;
  bool final = false;
  int settled_at = 0;  // the pairs of the look that settled it; 0 = open
};

// One look: every row not yet final is judged on its log ratios so far
// (`ratios[r]`, one per pair; NaN where that pair's row did not run on a
// side, left out; fewer than 2 pairs: insufficient) and made final where
// settled. `rows` is resized to `ratios`.
void judge_look(const std::vector<std::vector<double>>& ratios, const DuetDesign& design, std::vector<DuetRow>& rows);

// Whether the job may stop: every row final.
bool all_settled(const std::vector<DuetRow>& rows);

// The next look after `pairs` pairs (0 when `pairs` is at or past the last).
int next_look(const DuetDesign& design, int pairs);

// The duet's design checked: looks increasing, the first >= 2, alpha and
// same_risk in (0, 0.5), min_effect > 0. Empty when fine, else what is wrong ("looks must increase").
std::string design_problem(const DuetDesign& design);

}  // namespace ftb::stats
