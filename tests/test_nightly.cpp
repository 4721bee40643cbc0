// reports/analysis/nightly.h: the nightly gate held to its rates by
// simulation with a hierarchical noise model (a night's luck shared by its
// repeats, part of it shared by the scenarios of the night), through the
// same judge_nights that `ftbench regress` and `history show` call.
// test_history.cpp runs fewer trials of the same through the history store.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "reports/analysis/nightly.h"
#include "reports/analysis/power.h"

using namespace ftb::stats;

namespace {

struct World {
  int scenarios = 10, history = 8, repeats = 5;
  double between = 0.02, within = 0.03;  // sd (log) of the night's luck and of one repeat
  std::mt19937_64 rng;
  explicit World(uint64_t seed) : rng(seed) {}
  std::normal_distribution<double> z;
  // One night of every scenario; `shift[i]` moves scenario i's true level (log).
  std::vector<std::vector<double>> night(const std::vector<double>& shift) {
    const double shared = between / std::sqrt(2.0) * z(rng);  // the machine's night, every scenario
    std::vector<std::vector<double>> out;
    for (int i = 0; i < scenarios; ++i) {
      const double own = between / std::sqrt(2.0) * z(rng);
      std::vector<double> reps;
      for (int k = 0; k < repeats; ++k)
        reps.push_back(1000 * (1 + i) * std::exp(shift[i] + shared + own + within * z(rng)));
      out.push_back(reps);
    }
    return out;
  }
  // History nights with shift `before` for `nights_before`, then `after` until the history is full; tonight `tonight`.
  std::vector<NightSeries> series(const std::vector<double>& before, int nights_before, const std::vector<double>& after,
                                  const std::vector<double>& tonight) {
    std::vector<NightSeries> s(static_cast<size_t>(scenarios));
    for (int n = 0; n < history; ++n) {
      const auto nt = night(n < nights_before ? before : after);
      for (int i = 0; i < scenarios; ++i) s[i].nights.push_back(nt[i]);
    }
    const auto t = night(tonight);
    for (int i = 0; i < scenarios; ++i) s[i].tonight = t[i];
    return s;
  }
};

bool any_regressed(const std::vector<NightVerdict>& v) {
  for (const auto& x : v)
    if (x.outcome == Verdict::worse) return true;
  return false;
}

// One night of 5 repeats around 100 x factor with a per-repeat sd `sd` (log).
std::vector<double> steady_night(std::mt19937_64& rng, double factor, double sd) {
  std::normal_distribution<double> z;
  std::vector<double> v;
  for (int k = 0; k < 5; ++k) v.push_back(100 * factor * std::exp(sd * z(rng)));
  return v;
}

}  // namespace

TEST_CASE("nightly gate: A/A nights raise a whole-report false alarm in <= 1 %, between-night share 0 to 60 %") {
  // Total sd of one repeat 4 %; the between-night share of its variance from 0 to 0.6.
  for (double share : {0.0, 0.3, 0.6}) {
    World w(100 + static_cast<uint64_t>(share * 10));
    w.between = std::sqrt(share) * 0.04;
    w.within = std::sqrt(1 - share) * 0.04;
    const std::vector<double> zero(10, 0.0);
    int alarms = 0;
    const int trials = 1500;
    for (int t = 0; t < trials; ++t) alarms += any_regressed(judge_nights(w.series(zero, 8, zero, zero)));
    INFO("between-night share " << share << ": " << alarms << " of " << trials);
    CHECK(alarms <= trials / 100);
  }
}

TEST_CASE("nightly gate: a 15 % slowdown of one scenario is caught in >= 90 % of nights (2 % between, 3 % within)") {
  World w(7);
  const std::vector<double> zero(10, 0.0);
  std::vector<double> slow = zero;
  slow[3] = std::log(0.85);
  int caught = 0, wrong = 0;
  const int trials = 1000;
  for (int t = 0; t < trials; ++t) {
    const auto v = judge_nights(w.series(zero, 8, zero, slow));
    caught += v[3].outcome == Verdict::worse;
    for (int i = 0; i < 10; ++i) wrong += i != 3 && v[i].outcome == Verdict::worse;
  }
  INFO("caught " << caught << " of " << trials << ", other scenarios flagged " << wrong);
  CHECK(caught >= trials * 9 / 10);
  CHECK(wrong <= trials / 100);
}

TEST_CASE("nightly gate: after an accepted step, the nights that follow do not fail again for it") {
  World w(21);
  const std::vector<double> zero(10, 0.0);
  std::vector<double> slow = zero;
  slow[3] = std::log(0.85);
  // The step landed 1, 2 or 3 nights before tonight (the first of them alarmed and was accepted).
  for (int since : {1, 2, 3}) {
    int alarms = 0, reported = 0;
    const int trials = 500;
    for (int t = 0; t < trials; ++t) {
      const auto v = judge_nights(w.series(zero, w.history - since, slow, slow));
      alarms += v[3].outcome == Verdict::worse;
      for (const auto& c : v[3].steps) reported += c.index == w.history - since;
    }
    INFO(since << " night(s) after the step: " << alarms << " alarms, step reported in " << reported);
    CHECK(alarms <= trials / 10);
    if (since >= 1) CHECK(reported >= trials * 8 / 10);
  }
}

TEST_CASE("nightly gate: one scenario much noisier than the rest uses its own spread, not the pool's") {
  // Nine quiet scenarios and one whose nights wander 8x as much: with the pool
  // alone it would alarm often; it is an outlier of the empirical-Bayes prior
  // and keeps its own spread.
  int alarms = 0;
  const int trials = 800;
  std::mt19937_64 rng(77);
  std::normal_distribution<double> z;
  for (int t = 0; t < trials; ++t) {
    std::vector<NightSeries> s(10);
    for (int i = 0; i < 10; ++i) {
      const double b = i == 0 ? 0.08 : 0.01;
      auto night = [&] {
        std::vector<double> reps;
        const double luck = b * z(rng);
        for (int k = 0; k < 5; ++k) reps.push_back(100 * std::exp(luck + 0.01 * z(rng)));
        return reps;
      };
      for (int n = 0; n < 12; ++n) s[i].nights.push_back(night());
      s[i].tonight = night();
    }
    alarms += any_regressed(judge_nights(s));
  }
  INFO(alarms << " of " << trials);
  CHECK(alarms <= trials * 3 / 100);
}

TEST_CASE("nightly gate: too little history is insufficient, and a lower-is-better metric regresses upward") {
  std::vector<NightSeries> s(1);
  s[0].nights = {{10, 10.1}, {10, 9.9}};
  s[0].tonight = {20, 20};
  auto v = judge_nights(s);
  CHECK(v[0].outcome == Verdict::insufficient);
  CHECK(v[0].note.find("insufficient history: 2 night(s)") != std::string::npos);
  s[0].nights = {{10, 10.1, 9.9}, {10, 9.9, 10.1}, {10.05, 9.95, 10}, {10, 10.02, 9.98}};
  s[0].direction = Direction::lower_is_better;
  v = judge_nights(s);
  CHECK(v[0].outcome == Verdict::worse);
  CHECK(v[0].change == doctest::Approx(1).epsilon(0.02));
  s[0].tonight = {5, 5.01, 4.99};
  CHECK(judge_nights(s)[0].outcome == Verdict::better);
}

TEST_CASE("detection_curve (ftbench power): rises with the slowdown, false alarms at 0 stay near the family rate") {
  PowerSetup p;
  p.trials = 400;
  const auto c = detection_curve(p, {0.0, 0.05, 0.15});
  REQUIRE(c.size() == 3);
  CHECK(c[0].alarm_rate() <= 0.015);
  CHECK(c[0].caught <= c[1].caught);
  CHECK(c[1].caught < c[2].caught);
  CHECK(c[2].caught_rate() >= 0.9);
  // Deterministic for a seed.
  CHECK(detection_curve(p, {0.05})[0].caught == c[1].caught);
}

TEST_CASE("nightly gate: a new level that began last night counts only if last night was flagged") {
  // Last night 8 % slower (under a 10 % minimum effect: not flagged), tonight
  // 12 % slower. The change point puts both on a new level; since last night
  // raised nothing, tonight is judged against the level before it, not
  // against last night alone (which would hide the slowdown as -4 %).
  NightlyRule rule;
  rule.min_effect = 0.10;
  std::mt19937_64 rng(5);
  auto night = [&](double factor) { return steady_night(rng, factor, 0.003); };
  std::vector<NightSeries> s(1);
  for (int n = 0; n < 8; ++n) s[0].nights.push_back(night(1.0));
  s[0].tonight = night(0.92);
  CHECK(judge_nights(s, rule)[0].outcome == Verdict::same);  // last night, when it ran
  s[0].nights.push_back(s[0].tonight);
  s[0].tonight = night(0.88);
  const auto v = judge_nights(s, rule)[0];
  CHECK(v.outcome == Verdict::worse);
  CHECK(v.reference_nights == 8);
  CHECK(v.change == doctest::Approx(-0.12).epsilon(0.05));
  CHECK(v.steps.empty());  // not a step the history shows: it is tonight's
}

TEST_CASE("nightly gate: a history night with a zero is left out with a note, the rest still judged") {
  // Before: one night of 0 samples/s turned the whole window into "insufficient history".
  std::mt19937_64 rng(9);
  auto night = [&](double factor) { return steady_night(rng, factor, 0.01); };
  std::vector<NightSeries> s(1);
  for (int n = 0; n < 20; ++n) s[0].nights.push_back(night(1.0));
  s[0].nights[6] = {0, 0, 0, 0, 0};
  s[0].nights[11] = {};  // a night without repeats
  s[0].tonight = night(0.8);
  const auto v = judge_nights(s)[0];
  CHECK(v.outcome == Verdict::worse);
  CHECK(v.history_nights == 20);
  CHECK(v.left_out == std::vector<int>{6, 11});
  CHECK(v.note.find("left out history night(s) 7, 12 of 20") != std::string::npos);
  s[0].tonight = night(1.0);
  CHECK(judge_nights(s)[0].outcome == Verdict::same);
}

TEST_CASE("nightly: tonight from several runs is the mean of their levels, with a run's variance over their number") {
  // Fails if the reruns were ignored (tonight_runs 1, the first run's level),
  // pooled as one run's repeats (the between-night part not divided: the
  // standard error would not approach the reference's alone), or if the
  // reference nights were not named.
  World w(99);
  auto s = w.series(std::vector<double>(10, 0.0), 8, std::vector<double>(10, 0.0), std::vector<double>(10, 0.0));
  const auto one = judge_nights(s);
  const auto first = s[0].tonight;
  std::vector<double> slower = first;
  for (double& x : slower) x *= 0.9;
  s[0].reruns = {slower};
  const auto two = judge_nights(s);
  CHECK(one[0].tonight_runs == 1);
  CHECK(two[0].tonight_runs == 2);
  CHECK(two[0].tonight_level == doctest::Approx((run_level(first) + run_level(slower)) / 2));
  CHECK(two[0].reference == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // Var = level/R + run/K: with R = 8, from 1 + 1/8 to 1/2 + 1/8 of a run level's variance (equal repeats).
  CHECK(two[0].se * two[0].se == doctest::Approx(one[0].se * one[0].se * (0.5 + 0.125) / (1 + 0.125)).epsilon(0.01));
}

namespace {

// `trials` A/A nights of one scenario: `history` nights of 5 repeats, each
// night's luck `between`, each repeat's `within` (log sd); the outcomes counted.
std::vector<int> aa_outcomes(int history, double between, double within, int trials, uint64_t seed,
                             NightVerdict* last = nullptr, std::vector<NightVerdict>* all = nullptr) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  auto night = [&] {
    const double luck = between * z(rng);
    std::vector<double> reps;
    for (int k = 0; k < 5; ++k) reps.push_back(100 * std::exp(luck + within * z(rng)));
    return reps;
  };
  std::vector<int> count(5, 0);
  for (int t = 0; t < trials; ++t) {
    std::vector<NightSeries> s(1);
    for (int n = 0; n < history; ++n) s[0].nights.push_back(night());
    s[0].tonight = night();
    const auto v = judge_nights(s)[0];
    ++count[static_cast<size_t>(v.outcome)];
    if (last) *last = v;
    if (all) all->push_back(v);
  }
  return count;
}

}  // namespace

// Issue 36 (a): "same" must mean the change's interval rules out every change
// beyond the minimum effect (3 %), not that the test failed to see one.
TEST_CASE("nightly: too short or too noisy a history to rule out a 3 % change is cannot tell, naming what settles it") {
  const auto same = static_cast<size_t>(Verdict::same), cannot = static_cast<size_t>(Verdict::cannot_tell);
  // Too short: 3 nights at 2 % between-night and 3 % within-run noise.
  NightVerdict v;
  auto c = aa_outcomes(3, 0.02, 0.03, 200, 361, &v);
  MESSAGE("3 nights, 2 % between: same " << c[same] << ", cannot tell " << c[cannot] << " of 200");
  CHECK(c[cannot] >= 195);
  CHECK(c[static_cast<size_t>(Verdict::worse)] == 0);
  CHECK(v.outcome == Verdict::cannot_tell);
  CHECK(v.low < -0.03);
  CHECK(v.high > 0.03);
  CHECK(cannot_tell_text(v, NightlyRule{}).find("still includes changes beyond +-3 %") != std::string::npos);
  // Too noisy: 20 nights, but one run tonight cannot rule out 3 % at 2 % between-night noise;
  // more runs tonight would (the reference's part is small by now).
  // Where the estimate is within 1 % of none, a few more runs (3 to 11 at
  // the true noise, from the noise model: the reference's part is level/20;
  // each night's own estimate of the noise scatters it).
  std::vector<NightVerdict> all;
  c = aa_outcomes(20, 0.02, 0.03, 200, 362, &v, &all);
  MESSAGE("20 nights, 2 % between: same " << c[same] << ", cannot tell " << c[cannot] << " of 200");
  CHECK(c[cannot] >= 190);
  int near = 0, few = 0;
  for (const auto& x : all)
    if (x.outcome == Verdict::cannot_tell && std::abs(x.change) < 0.01) {
      ++near;
      few += x.more_runs >= 1 && x.more_runs <= 20;
      if (x.more_runs > 0) CHECK(cannot_tell_text(x, NightlyRule{}).find(" more run") != std::string::npos);
    }
  MESSAGE(few << " of " << near << " estimates within 1 % name 1 to 20 more runs");
  CHECK(near >= 50);
  CHECK(few >= near * 9 / 10);
  // A long enough, quiet enough history and no change: same.
  c = aa_outcomes(20, 0.003, 0.008, 200, 363, &v);
  MESSAGE("20 nights, 0.3 % between: same " << c[same] << ", cannot tell " << c[cannot] << " of 200");
  CHECK(c[same] >= 195);
  CHECK(cannot_tell_text(v, NightlyRule{}).empty());
}

// "(min_effect, or calibrate's minimum detectable change)": with a noise
// file, "same" rules out what the rule could have caught on that machine.
TEST_CASE("nightly: with a calibrated minimum detectable change, same rules out that change, not the minimum effect") {
  std::mt19937_64 rng(365);
  std::normal_distribution<double> z;
  int same_3 = 0, same_mdc = 0, cannot_mdc = 0;
  for (int t = 0; t < 200; ++t) {
    auto night = [&] {
      const double luck = 0.02 * z(rng);
      std::vector<double> reps;
      for (int k = 0; k < 5; ++k) reps.push_back(100 * std::exp(luck + 0.03 * z(rng)));
      return reps;
    };
    std::vector<NightSeries> s(1);
    for (int n = 0; n < 8; ++n) s[0].nights.push_back(night());
    s[0].tonight = night();
    const auto plain = judge_nights(s)[0];
    s[0].same_within = 0.12;  // the committed aa-cpu calibration's order of magnitude
    const auto calibrated = judge_nights(s)[0];
    same_3 += plain.outcome == Verdict::same;
    same_mdc += calibrated.outcome == Verdict::same;
    cannot_mdc += calibrated.outcome == Verdict::cannot_tell;
    CHECK(calibrated.p_worse == doctest::Approx(plain.p_worse));  // the test is the same; only "same" moves
    if (calibrated.outcome == Verdict::same) {
      CHECK(calibrated.low > -0.12);
      CHECK(calibrated.high < 0.12);
    }
    if (calibrated.outcome == Verdict::cannot_tell)
      CHECK(cannot_tell_text(calibrated, NightlyRule{}).find("beyond +-12 %") != std::string::npos);
  }
  MESSAGE("8 nights at 2 %/3 %, no change: same " << same_3 << " of 200 against 3 %, " << same_mdc
                                                  << " against a 12 % minimum detectable change");
  CHECK(same_3 <= 10);
  // Measured 180 of 200 (seed 365): the rest have a wide between-night
  // estimate (7 df) and stay cannot tell even at 12 %.
  CHECK(same_mdc >= 170);
  CHECK(same_mdc + cannot_mdc == 200);  // nothing called on A/A nights
  // A smaller calibrated change than the rule's effect changes nothing.
  std::vector<NightSeries> s(1);
  for (int n = 0; n < 8; ++n) s[0].nights.push_back({100, 101, 99});
  s[0].tonight = {100, 101, 99.5};
  const auto base = judge_nights(s)[0];
  s[0].same_within = 0.01;
  CHECK(judge_nights(s)[0].outcome == base.outcome);
}

TEST_CASE("nightly: the runs a cannot tell names do settle it, if the estimate holds") {
  std::mt19937_64 rng(364);
  std::normal_distribution<double> z;
  auto night = [&](double luck_sd) {
    const double luck = luck_sd * z(rng);
    std::vector<double> reps;
    for (int k = 0; k < 5; ++k) reps.push_back(100 * std::exp(luck + 0.01 * z(rng)));
    return reps;
  };
  std::vector<NightSeries> s(1);
  for (int n = 0; n < 12; ++n) s[0].nights.push_back(night(0.015));
  s[0].tonight = s[0].nights.back();  // tonight exactly as the last night
  const auto v = judge_nights(s)[0];
  REQUIRE(v.outcome == Verdict::cannot_tell);
  REQUIRE(v.more_runs > 0);
  // The named runs, each exactly at tonight's level (the estimate holds): same.
  for (int k = 0; k < v.more_runs; ++k) s[0].reruns.push_back(s[0].tonight);
  const auto settled = judge_nights(s)[0];
  CHECK(settled.tonight_runs == 1 + v.more_runs);
  CHECK(settled.outcome == Verdict::same);
}

// Issue 36 (d): one outlying night (-40 %) in a series' history is left out of
// that series' spread and reference; the series keeps the pool's df and its
// own detection, and the rest of the report is untouched by it.
TEST_CASE("nightly: one outlying history night is left out of its series, named, and costs it no detection") {
  World w(365);
  const std::vector<double> zero(10, 0.0);
  std::vector<double> slow = zero;
  slow[2] = std::log(0.85);
  int caught = 0, named = 0, own = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    auto s = w.series(zero, 8, zero, slow);
    for (double& x : s[2].nights[4]) x *= 0.6;  // the slowed scenario's own outlying night
    const auto v = judge_nights(s);
    caught += v[2].outcome == Verdict::worse;
    named += v[2].outlying_night == 4;
    own += v[2].own_spread;
  }
  MESSAGE("caught " << caught << ", night named " << named << ", own spread " << own << " of " << trials);
  CHECK(caught >= trials * 9 / 10);
  CHECK(named >= trials * 98 / 100);
  CHECK(own <= trials / 20);
}
