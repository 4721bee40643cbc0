// "Does this technique keep accuracy?" answered by a paired test (issue 47):
// two rows (or two reports' rows) scored on the same test split are compared
// example by example, and the one verdict rule (verdict.h's decide()) says
// same / lower / higher / cannot tell against min_effect in points.
//
// Two questions, two bases:
//   test_sample  one trained model a side (repeats of one seed retrain the
//                same model): exact McNemar on the discordant examples of
//                the first repeats, with Newcombe's interval. It answers "do
//                these two trained models differ on reviews like the test
//                split's?"; the training run's luck is not in it.
//   seeds        two or more repeats a side, each retrained with its own
//                seed (seed_per_repeat=on), paired by repeat: a t interval over
//                the seeds' paired differences (df seeds - 1). It answers "does
//                the technique move accuracy on this test split, over
//                training luck?"; the test sample's own noise is not in it.
// No I/O, deterministic.
#pragma once

#include "reports/analysis/accuracy.h"
#include "reports/record/report.h"

#include <optional>
#include <string>
#include <vector>

namespace ftb {

enum class AccuracyBasis { test_sample, seeds };
std::string to_string(AccuracyBasis b);  // "test_sample", "seeds"

struct AccuracyVerdict {
  AccuracyBasis basis = AccuracyBasis::test_sample;
  int examples = 0;                 // the test split's n
  int seeds = 1;                    // paired repeats the verdict used
  stats::PairedAccuracy first;      // the first repeats' paired table and McNemar (always shown)
  double difference = 0;            // candidate - reference, points: the verdict's estimate
  double low = 0, high = 0;         // its 95 % interval, points (NaN: none)
  double p_value = 1;               // McNemar's (test_sample) or the t test's (seeds)
  double seed_sd_points = 0;        // seeds: sd of the paired differences over seeds
  double min_effect_points = 1;
  // seeds, cannot tell: the seeds in all at which the t interval, at this sd
  // of the differences, would fall on one side of +-min_effect if the mean
  // held (modelled; resolution.h's settling_half_width); 0: none within 50.
  int seeds_to_settle = 0;
  stats::Decision decision;
  stats::KeepsAccuracy keeps = stats::KeepsAccuracy::cannot_tell;
};

// The default min_effect in points where a report states none.
constexpr double kAccuracyMinEffectPoints = 1.0;
// report.config.accuracy_min_effect, else the default.
double accuracy_min_effect_points(const nlohmann::json& config);

// reference and candidate: rows whose repeats kept per-example hits on the
// same split (the caller checks the split's hash). by_seed: the repeats
// were retrained with their own seeds (both runs' seed_per_repeat).
// nullopt where either row lacks hits or their sizes differ.
std::optional<AccuracyVerdict> judge_rows_accuracy(const ScenarioResult& reference, const ScenarioResult& candidate,
                                                   bool by_seed, double min_effect_points);

// A row against baseline in one report (nullopt for baseline itself, a row
// not ok, or hits not kept).
std::optional<AccuracyVerdict> accuracy_vs_baseline(const Report& report, const ScenarioResult& r,
                                                    const std::string& baseline);

// Did the run retrain each repeat with its own seed (config.seed_per_repeat)?
bool seeds_per_repeat(const nlohmann::json& config);

// "yes", "no", "cannot tell": the table's "keeps accuracy" cell.
std::string to_string(stats::KeepsAccuracy k);
// The cell with its evidence: "yes (+0.3 [-1.2, 1.8])", "cannot tell (-4.5 [-7.6, -1.4])".
std::string keeps_accuracy_cell(const AccuracyVerdict& v);
nlohmann::json to_json(const AccuracyVerdict& v, const std::string& reference);
// Why, in points: "the 95 % interval lies inside +-1 points", "McNemar's test
// rejected no change at 0.05 and the difference lies beyond +-1 points".
std::string explain(const AccuracyVerdict& v);

}  // namespace ftb
