#include "reports/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "core/base/json_path.h"
#include "core/base/text_format.h"
#include "reports/analysis/intervals.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;

namespace {

std::vector<double> metric_samples(const ScenarioResult& r, Metric m) { return metric_values(r.repeats, m); }

bool recorded(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

// A row takes the one verdict (verdict.h) as decided; why it stays open
// follows from it (insufficient: no noise estimate).
void take(const stats::Decision& d, RowVerdict& v, stats::Ruling& why, stats::Resolution& res) {
  v = d.verdict;
  why = d.reason.ruling;
  res = d.reason.settle;
}

stats::Interval ratio_from(const stats::LevelDifference& d, const std::vector<double>& a, const std::vector<double>& b) {
  stats::Interval r;
  r.estimate = std::exp(d.diff);
  r.n = std::min(d.runs_a, d.runs_b);
  // min/max: the most extreme single-run ratios.
  r.min = std::exp(*std::min_element(b.begin(), b.end()) - *std::max_element(a.begin(), a.end()));
  r.max = std::exp(*std::max_element(b.begin(), b.end()) - *std::min_element(a.begin(), a.end()));
  if (d.basis == stats::NoiseBasis::none || !std::isfinite(d.low)) {
    r.low = r.high = r.estimate;
    r.coverage = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  r.low = std::exp(d.low);
  r.high = std::exp(d.high);
  r.coverage = d.level;
  r.method = stats::IntervalMethod::t_over_runs;
  r.n = std::max(2, d.runs_a + d.runs_b);  // an interval exists: the formatter shows it
  return r;
}

// The run-to-run noise of a geometric mean over `scenarios` from a noise
// file. The scenarios of one run share its luck, so their noise does not
// average out as if they were independent: per calibration run the mean of
// their log levels (the file keeps each run's median), its sd over the runs.
// Where the runs do not line up (a scenario not ok in every calibration run)
// the mean of the scenarios' sds, which the sd of a mean never exceeds, with
// the fewest df. nullopt when a scenario has no estimate.
std::optional<stats::KnownNoise> geomean_noise(const NoiseFile& noise, const std::vector<std::string>& scenarios,
                                               Metric metric) {
  std::vector<const NoiseEstimate*> estimates;
  for (const auto& name : scenarios) {
    const NoiseEstimate* e = find_noise(noise, name, metric);
    if (!e || !(e->run_cv > 0)) return std::nullopt;
    estimates.push_back(e);
  }
  bool aligned = noise.runs >= 2;
  for (const auto* e : estimates)
    aligned = aligned && e->runs == noise.runs && static_cast<int>(e->run_medians.size()) == noise.runs &&
              recorded(e->run_medians);
  if (aligned) {
    std::vector<double> per_run(static_cast<size_t>(noise.runs), 0.0);
    for (const auto* e : estimates)
      for (size_t k = 0; k < per_run.size(); ++k)
        per_run[k] += std::log(e->run_medians[k]) / static_cast<double>(estimates.size());
    const double sd = std::sqrt(stats::sample_variance(per_run));
    if (sd > 0) return stats::KnownNoise{sd, static_cast<double>(noise.runs - 1)};
  }
  double sd = 0, df = std::numeric_limits<double>::infinity();
  for (const auto* e : estimates) {
    sd += e->run_cv / static_cast<double>(estimates.size());
    df = std::min(df, e->run_df);
  }
  return stats::KnownNoise{sd, df};
}

// One family's verdicts (rows, or the metrics' geometric means): Holm over
// their tests and decide() for each (run_verdicts).
template <class Judged>
void judge_family(const std::vector<Judged*>& family, const CompareRule& rule) {
  std::vector<stats::LevelDifference> diffs;
  for (const Judged* j : family) diffs.push_back(j->levels);
  const auto verdicts = stats::run_verdicts(diffs, rule.family_alpha, rule.min_effect);
  for (size_t i = 0; i < family.size(); ++i)
    take(verdicts[i], family[i]->verdict, family[i]->why, family[i]->resolution);
}

// Geometric means: per run, over the scenarios both sides ran ok in every
// run; then the rows' rule over them (Holm over the metrics' means).
void add_geomeans(PairComparison& p, const Side& reference, const Side& other, const CompareRule& rule,
                  const NoiseFile* noise) {
  for (Metric metric : kRunMetrics) {
    GeoMean g;
    g.metric = metric;
    for (const auto& s : p.scenarios)
      for (const auto& m : s.metrics)
        if (m.metric == metric && m.reference_runs == p.reference_runs && m.other_runs == p.other_runs)
          g.scenarios.push_back(s.scenario);
    if (g.scenarios.empty()) {
      g.note = "no scenario ran ok in both with this metric recorded";
      g.ratio.estimate = g.ratio.low = g.ratio.high = std::numeric_limits<double>::quiet_NaN();
      p.geomeans.push_back(std::move(g));
      continue;
    }
    auto run_means = [&](const Side& side) {
      std::vector<double> out;
      for (const auto& run : side.runs) {
        double sum = 0;
        for (const auto& name : g.scenarios) sum += stats::run_level(metric_samples(*find_result(run, name), metric));
        out.push_back(sum / static_cast<double>(g.scenarios.size()));
      }
      return out;
    };
    const auto a = run_means(reference), b = run_means(other);
    const auto known = noise ? geomean_noise(*noise, g.scenarios, metric) : std::nullopt;
    g.levels = stats::compare_levels(a, b, known, rule.level, stats::UnmeasuredSide::cannot_tell);
    g.ratio = ratio_from(g.levels, a, b);
    if (g.levels.basis == stats::NoiseBasis::none)
      g.note = a.size() == 1 && b.size() == 1
                   ? "one run a side: no interval (add runs to see how far a second run would move it)"
                   : "a side of one run: its run-to-run noise is unknown, no interval (add runs or --noise)";
    p.geomeans.push_back(std::move(g));
  }
  std::vector<GeoMean*> means;
  for (auto& g : p.geomeans)
    if (!g.scenarios.empty()) means.push_back(&g);
  judge_family(means, rule);
}

// A side's rows of a scenario, one per run (null where a run lacks it).
std::vector<const ScenarioResult*> side_rows(const Side& side, const std::string& name) {
  std::vector<const ScenarioResult*> rows;
  for (const auto& run : side.runs) rows.push_back(find_result(run, name));
  return rows;
}

// Each side's presence and status (ok when ok in every run of it); true when
// both sides ran it ok in every run.
bool read_statuses(ScenarioComparison& s, const std::vector<const ScenarioResult*>& ra,
                   const std::vector<const ScenarioResult*>& rb) {
  bool all_ok = true;
  for (const auto* rows : {&ra, &rb}) {
    const bool is_ref = rows == &ra;
    bool in = false;
    Status st = Status::ok;
    std::string why;
    for (const auto* r : *rows) {
      if (!r) {
        all_ok = false;
        continue;
      }
      in = true;
      if (r->status != Status::ok && st == Status::ok) {
        st = r->status;
        why = r->reason;
      }
    }
    if (!in || st != Status::ok) all_ok = false;
    (is_ref ? s.in_reference : s.in_other) = in;
    (is_ref ? s.reference_status : s.other_status) = st;
    (is_ref ? s.reference_reason : s.other_reason) = why;
  }
  return all_ok;
}

// One scenario of both sides: statuses, the settings that differ, each
// metric's runs against runs, and the operator profiles' difference.
// The test split's hash of a report (config.workload.test_hash), "" where none.
std::string test_split_hash(const Report& r) {
  const nlohmann::json* h = json_at_path(r.config, "workload.test_hash");
  return h && h->is_string() ? h->get<std::string>() : "";
}

}  // namespace

std::optional<AccuracyVerdict> paired_accuracy_of(const Report& ra, const ScenarioResult& a, const Report& rb,
                                                  const ScenarioResult& b) {
  const std::string ha = test_split_hash(ra);
  if (ha.empty() || ha != test_split_hash(rb)) return std::nullopt;  // not known to be the same examples
  return judge_rows_accuracy(a, b, seeds_per_repeat(ra.config) && seeds_per_repeat(rb.config),
                             accuracy_min_effect_points(ra.config));
}

namespace {

ScenarioComparison compare_scenario(const std::string& name, const Side& reference, const Side& other,
                                    const CompareRule& rule, const NoiseFile* noise) {
  ScenarioComparison s;
  s.scenario = name;
  const auto ra = side_rows(reference, name), rb = side_rows(other, name);
  if (!read_statuses(s, ra, rb)) return s;
  const ScenarioResult* a = ra.front();
  const ScenarioResult* b = rb.front();
  if (a->world_size != b->world_size)
    s.notes.push_back("world_size " + std::to_string(a->world_size) + " vs " + std::to_string(b->world_size));
  if (a->precision != b->precision)
    s.notes.push_back("precision " + to_string(a->precision) + " vs " + to_string(b->precision));
  if (device_kind(a->device) != device_kind(b->device)) s.notes.push_back("device " + a->device + " vs " + b->device);
  if (!a->optimizer.empty() && !b->optimizer.empty() && a->optimizer != b->optimizer)
    s.notes.push_back("optimizer " + a->optimizer + " vs " + b->optimizer);
  for (Metric metric : kRunMetrics) {
    std::vector<std::vector<double>> va, vb;
    for (const auto* r : ra) va.push_back(metric_samples(*r, metric));
    for (const auto* r : rb) vb.push_back(metric_samples(*r, metric));
    s.metrics.push_back(compare_metric(metric, va, vb, noise ? find_noise(*noise, name, metric) : nullptr, rule));
  }
  const OpProfile *pa = nullptr, *pb = nullptr;
  for (const auto* r : ra)
    if (has_profile(r->profile)) pa = &*r->profile;
  for (const auto* r : rb)
    if (has_profile(r->profile)) pb = &*r->profile;
  if (pa && pb) s.profile = profile_diff(*pa, *pb);
  s.accuracy = paired_accuracy_of(reference.runs.front(), *a, other.runs.front(), *b);
  return s;
}

// Holm over every row of this comparison, then the rule's third answer
// (settle) for the rows it calls the same.
void judge_rows(PairComparison& p, const CompareRule& rule) {
  std::vector<MetricComparison*> rows;
  for (auto& s : p.scenarios)
    for (auto& m : s.metrics)
      if (m.reference_runs > 0) rows.push_back(&m);
  judge_family(rows, rule);
}

}  // namespace

std::string describe(const CompareRule& rule) {
  char buf[2600];
  std::snprintf(buf, sizeof buf,
                "The run is the unit. Each run's level is the median over its repeats (samples/s end to end, and "
                "steady-state samples/s); ratio = B / A of the geometric means of the runs' levels, with a %.0f %% "
                "Welch t interval over runs (each side's run-to-run noise its own: from its runs and/or --noise "
                "from `ftbench calibrate`, weighted by degrees of freedom; Satterthwaite's df, 1 where a side's "
                "noise is its two runs' alone). A side of one run and no noise file has nothing that estimates its "
                "noise (repeats inside one process share its luck, and the other side's runs say nothing of this "
                "one's): the ratio is shown and the verdict is "
                "\"cannot tell\"; add runs (--a R1 R2 ... --b S1 S2 ...) or --noise. B is faster (slower) when "
                "Holm's procedure over every row of the comparison at %.2f rejects \"same\" (each row's p at the "
                "smaller of Satterthwaite's df and each side's own: Hsu's small-sample correction, which holds a whole "
                "comparison's false verdicts to the 0.05 even where a noisy side has three runs) and the ratio is at "
                "least %.2f (at most %.2f). Same within noise where the %.0f %% interval lies within [%.2f, %.2f]; "
                "otherwise \"cannot tell (wide)\": too few runs to tell no change from one of that size, and the "
                "further runs that would settle it are named (modelled from the measured noise). The geometric "
                "means get the same rule (Holm over the two metrics).",
                100 * rule.level, rule.family_alpha, 1 + rule.min_effect, 1 - rule.min_effect, 100 * rule.level,
                1 - rule.min_effect, 1 + rule.min_effect);
  return buf;
}

std::string compare_word(const RowVerdict& v) {
  if (!v) return "not recorded";
  switch (*v) {
    case stats::Verdict::better: return "faster";
    case stats::Verdict::worse: return "slower";
    case stats::Verdict::same: return "same within noise";
    case stats::Verdict::cannot_tell:
    case stats::Verdict::insufficient: return "cannot tell";
  }
  return "?";
}

std::string Side::label() const {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

MetricComparison compare_metric(Metric metric, const std::vector<std::vector<double>>& reference,
                                const std::vector<std::vector<double>>& other, const NoiseEstimate* noise,
                                const CompareRule& rule) {
  MetricComparison c;
  c.metric = metric;
  std::vector<double> a, b;
  for (const auto& run : reference)
    if (recorded(run)) {
      a.push_back(stats::run_level(run));
      c.reference_repeats += static_cast<int>(run.size());
    }
  for (const auto& run : other)
    if (recorded(run)) {
      b.push_back(stats::run_level(run));
      c.other_repeats += static_cast<int>(run.size());
    }
  if (a.empty() || b.empty()) return c;  // not_recorded
  c.reference_runs = static_cast<int>(a.size());
  c.other_runs = static_cast<int>(b.size());
  c.reference = std::exp(stats::mean(a));
  c.other = std::exp(stats::mean(b));
  std::optional<stats::KnownNoise> known;
  if (noise && noise->run_cv > 0) known = known_noise(*noise);
  c.levels = stats::compare_levels(a, b, known, rule.level, stats::UnmeasuredSide::cannot_tell);
  c.ratio = ratio_from(c.levels, a, b);
  c.verdict = stats::Verdict::cannot_tell;  // until compare_reports' Holm step
  return c;
}

PairComparison compare_reports(const Side& reference, const Side& other, const CompareRule& rule,
                               const NoiseFile* noise) {
  PairComparison p;
  p.reference_name = reference.label();
  p.other_name = other.label();
  p.reference_runs = static_cast<int>(reference.runs.size());
  p.other_runs = static_cast<int>(other.runs.size());
  const Report& a0 = reference.runs.front();
  const Report& b0 = other.runs.front();
  p.reference_run = a0.environment.facts();
  p.other_run = b0.environment.facts();
  p.config = check_configs(a0.config, b0.config);
  p.environment = diff_environments(run_facts(a0.environment, a0.config), run_facts(b0.environment, b0.config));

  std::vector<std::string> names;
  for (const auto* side : {&reference, &other})
    for (const auto& run : side->runs)
      for (const auto& r : run.results)
        if (std::find(names.begin(), names.end(), r.scenario) == names.end()) names.push_back(r.scenario);

  for (const auto& name : names) p.scenarios.push_back(compare_scenario(name, reference, other, rule, noise));
  judge_rows(p, rule);
  add_geomeans(p, reference, other, rule, noise);
  return p;
}

}  // namespace ftb
