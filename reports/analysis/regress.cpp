#include "reports/analysis/regress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "core/base/errors.h"
#include "reports/analysis/accuracy_verdict.h"
#include "core/base/json_fields.h"
#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/profile.h"
#include "reports/analysis/resolution.h"
#include "reports/analysis/two_level.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

std::vector<double> pooled(const std::vector<std::vector<RepeatSample>>& runs, Metric m) {
  std::vector<double> out;
  for (const auto& r : runs)
    for (const auto& s : r) out.push_back(metric_value(s, m));
  return out;
}

}  // namespace

std::string to_string(Gate g) {
  switch (g) {
    case Gate::throughput: return "throughput";
    case Gate::accuracy: return "accuracy";
    case Gate::memory: return "memory";
  }
  return "?";
}

std::set<Gate> parse_gates(const std::string& csv, const std::string& flag) {
  std::set<Gate> gates;
  size_t start = 0;
  while (start <= csv.size()) {
    const size_t comma = std::min(csv.find(',', start), csv.size());
    const std::string name = csv.substr(start, comma - start);
    bool found = false;
    for (Gate g : {Gate::throughput, Gate::accuracy, Gate::memory})
      if (to_string(g) == name) {
        gates.insert(g);
        found = true;
      }
    if (!found) input_error(flag, "unknown gate '" + name + "' (throughput, accuracy, memory)");
    start = comma + 1;
  }
  return gates;
}

Metric gate_metric(Gate g) {
  switch (g) {
    case Gate::throughput: return Metric::train_samples_per_s;
    case Gate::accuracy: return Metric::test_acc;
    case Gate::memory: return Metric::peak_bytes;
  }
  return Metric::train_samples_per_s;
}

std::string to_string(stats::Verdict o) {
  switch (o) {
    case stats::Verdict::worse: return "regressed";
    case stats::Verdict::better: return "improved";
    case stats::Verdict::same: return "same";
    case stats::Verdict::insufficient: return "insufficient";
    case stats::Verdict::cannot_tell: return "cannot tell";
  }
  return "?";
}

namespace {
// Tonight against the newest reference run that kept per-example hits of
// the same split, example by example: the first repeats (McNemar), or, with
// a seed per repeat, every repeat against the one of its seed.
void judge_accuracy_paired(MetricVerdict& v, const std::vector<std::vector<RepeatSample>>& reference,
                           const std::vector<RepeatSample>& current, const JudgeContext& ctx) {
  ScenarioResult ref, now;
  for (auto run = reference.rbegin(); run != reference.rend() && ref.repeats.empty(); ++run)
    if (!run->empty() && !run->front().test_correct.empty())
      ref.repeats = ctx.seeds_per_repeat ? *run : std::vector<RepeatSample>{run->front()};
  if (!current.empty()) now.repeats = ctx.seeds_per_repeat ? current : std::vector<RepeatSample>{current.front()};
  const auto a = judge_rows_accuracy(ref, now, ctx.seeds_per_repeat, ctx.accuracy_min_effect_points);
  if (!a) {
    v.outcome = stats::Verdict::insufficient;
    v.judged = false;
    v.note = "not judged: per-example test hits not kept on both sides (a report from before they were, or an "
             "evaluation capped by eval_max_batches)";
    return;
  }
  v.outcome = a->decision.verdict;
  const bool seeds = a->basis == AccuracyBasis::seeds;
  v.note = "paired with the newest reference run, example by example (" + std::to_string(a->examples) +
           " examples, first repeats: " + std::to_string(a->first.counts.only_a) + " only the reference got right, " +
           std::to_string(a->first.counts.only_b) + " only tonight's" +
           (seeds ? "; over " + std::to_string(a->seeds) + " seeds, repeat by repeat" : "") +
           "): " + format_double("%+.2f", a->difference) + " points [" + format_double("%+.2f", a->low) + ", " +
           format_double("%+.2f", a->high) + "], " + (seeds ? "t p " : "McNemar p ") +
           format_double("%.3g", a->p_value) + "; " + explain(*a);
}
}  // namespace

MetricVerdict judge_threshold(Metric m, const std::vector<std::vector<RepeatSample>>& reference, bool from_history,
                              const std::vector<RepeatSample>& current, const JudgeContext& ctx) {
  MetricVerdict v;
  v.metric = m;
  const std::vector<double> ref = pooled(reference, m), cur = metric_values(current, m);
  v.reference_runs = static_cast<int>(reference.size());
  v.level_runs = v.reference_runs;
  v.reference_n = static_cast<int>(ref.size());
  v.current_n = static_cast<int>(cur.size());
  if (!cur.empty()) v.current_median = stats::median(cur);
  if (ref.empty() || cur.empty()) {
    v.note = from_history ? "no run of this machine, preset and config in the history" : "not in the baseline";
    return v;
  }
  v.reference_median = stats::median(ref);
  v.change = v.reference_median != 0 ? v.current_median / v.reference_median - 1 : 0;
  const bool higher = metric_direction(m) == stats::Direction::higher_is_better;
  const double worse = higher ? -v.change : v.change;  // > 0: worse
  auto by_threshold = [&](double bad, double threshold, const std::string& how) {
    v.outcome = bad > threshold ? stats::Verdict::worse : -bad > threshold ? stats::Verdict::better : stats::Verdict::same;
    v.note = how;
  };
  if (m == Metric::test_acc)
    judge_accuracy_paired(v, reference, current, ctx);
  else
    by_threshold(worse, ctx.min_effect, "median change beyond " + format_double("%.3g", 100 * ctx.min_effect) + " %");
  return v;
}

namespace {

std::string run_words(const HistoryRun& r) {
  return (r.git_commit.empty() ? std::string("?") : r.git_commit.substr(0, 12)) + " (" + r.time + ")";
}

// A judged row's words: the steps the history shows (with their runs), the
// nights left out, and the note (the rule's numbers; a cannot tell's plan).
void describe_night(MetricVerdict& v, const stats::NightVerdict& n, const std::vector<RunRepeats>& runs,
                    const stats::NightlyRule& rule) {
  for (const auto& c : n.steps) {
    if (c.index <= 0 || c.index > static_cast<int>(runs.size())) continue;
    const std::string to = c.index < static_cast<int>(runs.size()) ? run_words(runs[c.index].run) : "tonight";
    v.steps.push_back(format_double("%+.1f %%", 100 * std::expm1(c.after - c.before)) + " between " +
                      run_words(runs[c.index - 1].run) + " and " + to);
  }
  // Judged rows name the nights left out in a note of their own; an
  // insufficient row's reason (n.note) already says it.
  if (n.outcome != stats::Verdict::insufficient)
    for (int k : n.left_out)
      if (k >= 0 && k < static_cast<int>(runs.size())) v.left_out.push_back(run_words(runs[k].run));
  if (n.outcome == stats::Verdict::cannot_tell) {
    v.why = n.why;
    v.why_open = stats::cannot_tell_text(n, rule);
  }
  if (n.outcome == stats::Verdict::insufficient)
    v.note = n.note;
  else
    v.note = (stats::interval_too_wide(v.why) ? "cannot tell: " + v.why_open + "; " : std::string()) +
             format_double("t-test vs %.0f night(s) since the last change point", n.reference_nights) +
             (v.current_runs > 1 ? format_double(", tonight the mean of %.0f runs' levels", v.current_runs) : "") +
             (n.own_spread ? " (its own spread: noisier than the pool)" : "") +
             (n.outlying_night >= 0 && n.outlying_night < static_cast<int>(runs.size())
                  ? ", " + run_words(runs[static_cast<size_t>(n.outlying_night)].run) +
                        format_double(" left out as an outlying night (p %.2g)", n.outlying_p)
                  : "") +
             format_double(", within-run sd %.2g %%", 100 * n.within_sd) +
             format_double(", between-night sd %.2g %%", 100 * n.between_sd);
}

}  // namespace

void judge_series(std::vector<MetricVerdict*>& rows, const std::vector<std::vector<RunRepeats>>& history,
                  const std::vector<std::vector<RepeatSample>>& tonight, const stats::NightlyRule& rule,
                  const std::vector<const NoiseEstimate*>& noise,
                  const std::vector<std::vector<std::vector<RepeatSample>>>& reruns) {
  std::vector<stats::NightSeries> series;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Metric m = rows[i]->metric;
    stats::NightSeries s;
    for (const auto& run : history[i]) s.nights.push_back(metric_values(run.repeats, m));
    s.tonight = metric_values(tonight[i], m);
    if (i < reruns.size())
      for (const auto& run : reruns[i]) s.reruns.push_back(metric_values(run, m));
    s.direction = metric_direction(m);
    if (noise[i] && noise[i]->run_cv > 0) s.noise = known_noise(*noise[i]);
    if (noise[i]) s.same_within = noise[i]->min_detectable_change;
    series.push_back(std::move(s));
  }
  const auto verdicts = stats::judge_nights(series, rule);
  for (size_t i = 0; i < rows.size(); ++i) {
    MetricVerdict& v = *rows[i];
    const stats::NightVerdict& n = verdicts[i];
    const auto& runs = history[i];
    v.reference_runs = static_cast<int>(runs.size());
    v.reference_n = 0;
    for (const auto& r : runs) v.reference_n += static_cast<int>(r.repeats.size());
    std::vector<double> all_tonight = series[i].tonight;
    for (const auto& run : series[i].reruns) all_tonight.insert(all_tonight.end(), run.begin(), run.end());
    v.current_n = static_cast<int>(all_tonight.size());
    v.current_runs = static_cast<int>(1 + series[i].reruns.size());
    v.current_median = v.current_n ? stats::median(all_tonight) : v.current_median;
    v.outcome = n.outcome;
    v.level_runs = n.reference_nights;
    v.reference_index.assign(n.reference.begin(), n.reference.end());
    if (std::isfinite(n.reference_level)) v.reference_median = std::exp(n.reference_level);
    v.change = n.change;
    v.p = n.p_worse;
    v.df = n.df;
    v.se = n.se;
    v.more_nights = n.more_nights;
    v.more_runs = n.more_runs;
    v.jointly = n.jointly;
    describe_night(v, n, runs, rule);
  }
}

bool RegressSummary::regressed() const {
  for (const auto& r : rows)
    if (r.gating && r.outcome == stats::Verdict::worse) return true;
  return false;
}

Report stored_report(const HistoryStore& store, const HistoryRun& run) {
  return report_from_json(store.report_json(run.id), run.source + " (history run " + std::to_string(run.id) + ")");
}

std::optional<OpProfile> stored_profile(const HistoryStore& store, const HistoryRun& run, const std::string& scenario) {
  return profile_in(stored_report(store, run), scenario);
}

}  // namespace ftb
