#include "reports/analysis/accuracy_verdict.h"

#include "core/base/text_format.h"
#include "reports/analysis/resolution.h"
#include "reports/analysis/two_level.h"

#include <cmath>
#include <limits>

namespace ftb {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kAlpha = 0.05;

// The repeats of both rows that kept hits of one size, paired by index.
std::vector<std::pair<const RepeatSample*, const RepeatSample*>> hit_pairs(const ScenarioResult& a,
                                                                          const ScenarioResult& b) {
  std::vector<std::pair<const RepeatSample*, const RepeatSample*>> out;
  for (std::size_t i = 0; i < a.repeats.size() && i < b.repeats.size(); ++i) {
    const auto& x = a.repeats[i].test_correct;
    if (x.empty() || x.size() != b.repeats[i].test_correct.size()) break;
    out.emplace_back(&a.repeats[i], &b.repeats[i]);
  }
  return out;
}

double accuracy_points(const std::vector<bool>& hits) {
  int k = 0;
  for (const bool h : hits) k += h;
  return 100.0 * k / static_cast<double>(hits.size());
}

void judge_by_seeds(AccuracyVerdict& v,
                    const std::vector<std::pair<const RepeatSample*, const RepeatSample*>>& pairs) {
  std::vector<double> d;
  double base = 0;
  for (const auto& [a, b] : pairs) {
    const double pa = accuracy_points(a->test_correct);
    d.push_back(accuracy_points(b->test_correct) - pa);
    base += pa / static_cast<double>(pairs.size());
  }
  const double k = static_cast<double>(d.size());
  const double mean = stats::mean(d);
  v.seeds = static_cast<int>(d.size());
  v.seed_sd_points = std::sqrt(stats::sample_variance(d));
  v.difference = mean;
  const double se = v.seed_sd_points / std::sqrt(k);
  const auto t = stats::t_interval(mean, se, k - 1, 0.95);
  v.low = t.low;
  v.high = t.high;
  // Every seed's difference the same (two rows that train the same models:
  // fused_adam and baseline on a CPU, example for example): no spread to
  // widen the interval, which is that difference.
  if (se == 0) v.low = v.high = mean;
  v.p_value = se > 0 ? 2 * (1 - stats::t_cdf(std::abs(mean) / se, k - 1)) : (mean == 0 ? 1.0 : 0.0);
  v.decision = stats::decide_points(base, mean, v.low, v.high, v.p_value <= kAlpha, v.min_effect_points);
  if (v.decision.verdict == stats::Verdict::cannot_tell && v.seed_sd_points > 0 && base > 0) {
    // In points the interval's half-width is t sd / sqrt(k); the target, in
    // the rule's log scale, taken back to points at the mean.
    const double target = base * std::expm1(stats::settling_half_width(std::log1p(mean / base),
                                                                       v.min_effect_points / base));
    for (int more = static_cast<int>(k) + 1; more <= 50 && v.seeds_to_settle == 0; ++more)
      if (stats::t_quantile(0.975, more - 1) * v.seed_sd_points / std::sqrt(more) <= target) v.seeds_to_settle = more;
  }
}

}  // namespace

std::string explain(const AccuracyVerdict& v) {
  const std::string band = "+-" + format_double("%.3g", v.min_effect_points) + " points";
  const std::string test = v.basis == AccuracyBasis::seeds ? "the t test over seeds" : "McNemar's test";
  switch (v.decision.reason.ruling) {
    case stats::Ruling::called: return test + " rejected no change at 0.05 and the difference lies beyond " + band;
    case stats::Ruling::settled: return "the 95 % interval lies inside " + band;
    case stats::Ruling::interval_reaches:
      return "the 95 % interval still includes differences beyond " + band +
             (v.seeds_to_settle > 0 ? "; about " + std::to_string(v.seeds_to_settle) +
                                          " seeds in all would settle it (modelled from the seeds' sd)"
             : v.basis == AccuracyBasis::seeds ? "; no plan of up to 50 seeds settles it"
                                               : "; seed_per_repeat=on asks for seeds");
    case stats::Ruling::beyond_not_called:
      return "the 95 % interval lies beyond " + band + ", but " + test + " did not reject no change at 0.05";
    case stats::Ruling::no_noise_estimate: break;
  }
  return "no interval (no correct example in the reference)";
}

namespace {

std::string verdict_word(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::worse: return "lower";
    case stats::Verdict::better: return "higher";
    case stats::Verdict::same: return "same";
    case stats::Verdict::cannot_tell: return "cannot tell";
    case stats::Verdict::insufficient: break;
  }
  return "insufficient";
}

}  // namespace

std::string to_string(AccuracyBasis b) { return b == AccuracyBasis::seeds ? "seeds" : "test_sample"; }

double accuracy_min_effect_points(const nlohmann::json& config) {
  if (config.is_object())
    if (const auto m = config.find("accuracy_min_effect"); m != config.end() && m->is_number()) return m->get<double>();
  return kAccuracyMinEffectPoints;
}

bool seeds_per_repeat(const nlohmann::json& config) {
  if (!config.is_object()) return false;
  const auto s = config.find("seed_per_repeat");
  return s != config.end() && ((s->is_string() && *s == "on") || (s->is_boolean() && s->get<bool>()));
}

std::optional<AccuracyVerdict> judge_rows_accuracy(const ScenarioResult& reference, const ScenarioResult& candidate,
                                                   bool by_seed, double min_effect_points) {
  const auto pairs = hit_pairs(reference, candidate);
  if (pairs.empty()) return std::nullopt;
  AccuracyVerdict v;
  v.min_effect_points = min_effect_points;
  v.examples = static_cast<int>(pairs[0].first->test_correct.size());
  v.first = stats::paired_accuracy(stats::pair_counts(pairs[0].first->test_correct, pairs[0].second->test_correct));
  if (by_seed && pairs.size() >= 2) {
    v.basis = AccuracyBasis::seeds;
    judge_by_seeds(v, pairs);
  } else {
    v.basis = AccuracyBasis::test_sample;
    v.difference = v.first.difference;
    v.low = v.first.low;
    v.high = v.first.high;
    v.p_value = v.first.p_value;
    v.decision = stats::judge_accuracy(v.first, min_effect_points, kAlpha);
  }
  v.keeps = stats::keeps_accuracy(v.decision.verdict);
  return v;
}

std::optional<AccuracyVerdict> accuracy_vs_baseline(const Report& report, const ScenarioResult& r,
                                                    const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  if (!base || base == &r || r.scenario == baseline || base->status != Status::ok || r.status != Status::ok)
    return std::nullopt;
  return judge_rows_accuracy(*base, r, seeds_per_repeat(report.config), accuracy_min_effect_points(report.config));
}

std::string to_string(stats::KeepsAccuracy k) {
  switch (k) {
    case stats::KeepsAccuracy::yes: return "yes";
    case stats::KeepsAccuracy::no: return "no";
    case stats::KeepsAccuracy::cannot_tell: break;
  }
  return "cannot tell";
}

std::string keeps_accuracy_cell(const AccuracyVerdict& v) {
  std::string s = to_string(v.keeps) + " (" + format_double("%+.1f", v.difference);
  if (std::isfinite(v.low) && std::isfinite(v.high))
    s += " [" + format_double("%+.1f", v.low) + ", " + format_double("%+.1f", v.high) + "]";
  return s + (v.basis == AccuracyBasis::seeds ? "; " + std::to_string(v.seeds) + " seeds)" : ")");
}

nlohmann::json to_json(const AccuracyVerdict& v, const std::string& reference) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  const auto& c = v.first.counts;
  nlohmann::json j = {
      {"reference", reference},
      {"basis", to_string(v.basis)},
      {"examples", v.examples},
      {"seeds", v.seeds},
      {"difference_points", num(v.difference)},
      {"low_points", num(v.low)},
      {"high_points", num(v.high)},
      {"level", 0.95},
      {"p_value", num(v.p_value)},
      {"test", v.basis == AccuracyBasis::seeds ? "t over the seeds' paired differences"
                                               : "exact McNemar on the discordant examples; Newcombe's interval"},
      {"min_effect_points", v.min_effect_points},
      {"verdict", verdict_word(v.decision.verdict)},
      {"keeps_accuracy", to_string(v.keeps)},
      {"explanation", explain(v)},
      {"first_repeats", {{"both_right", c.both}, {"only_reference_right", c.only_a},
                         {"only_candidate_right", c.only_b}, {"both_wrong", c.neither},
                         {"difference_points", num(v.first.difference)}, {"p_value", num(v.first.p_value)}}}};
  if (v.basis == AccuracyBasis::seeds) {
    j["seed_sd_points"] = num(v.seed_sd_points);
    if (v.seeds_to_settle > 0) j["seeds_to_settle"] = {{"seeds", v.seeds_to_settle}, {"modelled", true}};
  }
  return j;
}

}  // namespace ftb
