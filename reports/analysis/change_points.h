// Steps in a series of nightly levels, as Apache Otava (formerly Hunter,
// Fleming et al., ICPE 2023) finds them, with one addition:
//   1. a relaxed first pass proposes candidates: E-divisive means (Matteson &
//      James, JASA 2014; alpha = 1) locates the most likely split of a
//      segment, kept as a candidate where a two-sided Student t-test of its
//      two sides (pooled variance: a step moves the level, not the noise)
//      gives p < first_pass_p (Otava: 10 x max_p), recursively (binary
//      segmentation);
//   2. the addition: in each segment the interval [t1, t2) that maximises
//      the same energy statistic against the rest of the segment (circular
//      binary segmentation's arc, Olshen et al., Biostatistics 2004) is
//      proposed as two candidates at once where its t-test against the rest
//      is stronger than the best split's. A level that leaves for a few
//      nights and comes back has no single split that separates it (either
//      side holds both levels): binary segmentation missed 9 of the 40
//      two-step series of tests/otava_check.py, all of this kind;
//   3. Otava's merge: each candidate is tested (Student t) against its
//      neighbouring segments; while the weakest has p >= max_p it is
//      dropped (its segments merge) and its neighbours are tested again.
// Deterministic; no LibTorch.
//
// The t-tests judge the best of every split and interval, so max_p is not
// the rate of false steps: with the default settings flat Gaussian series
// show one in 0.59 % of 9-value series (8 nights of history and tonight, as
// the nightly gate splits them) and in 1.48 % of 21-value ones
// (tests/test_change_points.cpp, 40,000 series each; binary segmentation
// alone: 0.57 % and 1.25 %). Other settings are not measured: describe()
// of the nightly rule says so. A permutation test per split would hold
// max_p, at a cost the nightly simulations, which split every series of
// every simulated night, cannot pay.
#pragma once

#include <vector>

namespace ftb::stats {

struct ChangePointOptions {
  double max_p = 0.001;         // Student t-test of a change against its neighbouring segments (not the false-step rate)
  double first_pass_p = 0.01;   // the relaxed first pass that proposes candidates (Otava: 10 x max_p)
  int min_segment = 2;          // values on each side of a change, at least
  bool excursions = true;       // also propose a level that leaves and comes back (two changes at once)
  bool defaults() const;        // the settings whose false-step rates are measured (and stated)
};

struct ChangePoint {
  int index = 0;       // the first value of the new level
  double p = 1;        // the Student t-test's p against its neighbouring segments, final segmentation
  double before = 0, after = 0;  // the means of the segments either side, final segmentation
};

// Change points of `x`, in increasing index.
std::vector<ChangePoint> change_points(const std::vector<double>& x, const ChangePointOptions& o = {});

// The two-sample Student t-test with the pooled variance, two-sided p (1
// when there are fewer than three values; 0 for different means without any
// spread).
double student_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ftb::stats
