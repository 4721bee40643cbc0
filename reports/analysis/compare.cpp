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

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::vector<double> metric_samples(const ScenarioResult& r, Metric m) { return metric_values(r.repeats, m); }

bool recorded(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

json interval_json(const stats::Interval& i) { return to_json(i); }

// " (host vm, 2026-11-30T22:00:29Z, commit 30d3ca349ff8)" from the environment.
std::string run_summary(const json& env) {
  const std::pair<const char*, const char*> parts[] = {{"host", "host "}, {"timestamp", ""}, {"git_commit", "commit "}};
  std::string s;
  for (const auto& [key, label] : parts) {
    const json* v = json_at_path(env, key);
    if (v && v->is_string()) s += (s.empty() ? "" : ", ") + std::string(label) + v->get<std::string>();
  }
  return s.empty() ? "" : " (" + s + ")";
}

std::string ratio_text(const MetricComparison& m) {
  if (m.verdict == Verdict::not_recorded) return "-";
  return format_interval(m.ratio, "%.3f", "x");
}

Verdict verdict_of(stats::RunVerdict v) {
  switch (v) {
    case stats::RunVerdict::faster: return Verdict::faster;
    case stats::RunVerdict::slower: return Verdict::slower;
    case stats::RunVerdict::same: return Verdict::same;
    case stats::RunVerdict::cannot_tell: return Verdict::cannot_tell;
  }
  return Verdict::cannot_tell;
}

// The rule's third answer (resolution.h): a "same" whose interval still
// includes a change beyond +-min_effect is "cannot tell", with the further
// runs that would settle it; a cannot_tell from run_verdicts had no noise
// estimate.
void settle(Verdict& v, CannotTell& why, stats::Resolution& res, const stats::LevelDifference& d,
            const CompareRule& rule) {
  why = CannotTell::none;
  if (v == Verdict::cannot_tell) why = CannotTell::no_noise_estimate;
  if (v != Verdict::same) return;
  res = stats::resolve(d.low, d.high, {d.var_a, d.runs_a, d.df_a}, {d.var_b, d.runs_b, d.df_b}, rule.min_effect,
                       d.level);
  if (res.resolved) return;
  v = Verdict::cannot_tell;
  why = CannotTell::interval_too_wide;
}

std::string verdict_text(Verdict v, CannotTell why) {
  return to_string(v) + (why == CannotTell::interval_too_wide ? " (wide)" : "");
}

std::string settle_words(const stats::Resolution& r) { return stats::settle_text(r, "runs of A", "runs of B"); }

json settle_json(CannotTell why, const stats::Resolution& r) {
  if (why != CannotTell::interval_too_wide) return nullptr;
  return {{"more_reference_runs", r.more_a},
          {"more_other_runs", r.more_b},
          {"reachable", r.reachable},
          {"half_width_log", std::isfinite(r.half_width) ? json(r.half_width) : json(nullptr)},
          {"planned_half_width_log", std::isfinite(r.planned_half_width) ? json(r.planned_half_width) : json(nullptr)},
          {"modelled", true},
          {"text", settle_words(r)}};
}

json why_json(CannotTell why) { return why == CannotTell::none ? json(nullptr) : json(to_string(why)); }

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

std::string status_text(const ScenarioComparison& s, bool reference) {
  if (!(reference ? s.in_reference : s.in_other)) return "not run";
  return to_string(reference ? s.reference_status : s.other_status);
}

// "A skipped: needs CUDA; B failed: ..." for rows without a ratio.
std::string status_notes(const ScenarioComparison& s) {
  if (s.in_reference && s.in_other && s.reference_status == s.other_status && s.reference_reason == s.other_reason &&
      s.reference_status != Status::ok)
    return "no ratio; both " + to_string(s.reference_status) + (s.reference_reason.empty() ? "" : ": " + s.reference_reason);
  std::string notes;
  for (const bool reference : {true, false}) {
    const bool in = reference ? s.in_reference : s.in_other;
    const Status st = reference ? s.reference_status : s.other_status;
    if (!in || st == Status::ok) continue;
    const std::string& why = reference ? s.reference_reason : s.other_reason;
    notes += std::string(notes.empty() ? "" : "; ") + (reference ? "A " : "B ") + to_string(st) +
             (why.empty() ? "" : ": " + why);
  }
  return notes.empty() ? "no ratio" : "no ratio; " + notes;
}

json side_json(const ScenarioComparison& s, bool reference) {
  const bool in = reference ? s.in_reference : s.in_other;
  if (!in) return nullptr;
  return {{"status", to_string(reference ? s.reference_status : s.other_status)},
          {"reason", reference ? s.reference_reason : s.other_reason}};
}

// Below the table: what would settle each row that cannot tell because its
// interval is too wide, rows with the same answer named together.
std::string wide_rows_markdown(const PairComparison& p, const CompareRule& rule) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // settle text -> rows
  for (const auto& s : p.scenarios)
    for (const auto& m : s.metrics) {
      if (m.why != CannotTell::interval_too_wide) continue;
      const std::string what = s.scenario + (m.metric == Metric::train_samples_per_s ? " samples/s" : " steady");
      const std::string text = settle_words(m.resolution);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
      if (it == groups.end()) groups.push_back({text, {what}});
      else it->second.push_back(what);
    }
  if (groups.empty()) return "";
  std::string out = "\nCannot tell (wide): the " + fixed(100 * rule.level, 0) +
                    " % interval still includes changes beyond " + fixed(100 * rule.min_effect, 0) +
                    " % either way and no test called one, so \"same\" cannot be said (not enough runs to see a change "
                    "that size). What would settle it: the further runs at which the interval, from the noise the runs "
                    "measured, would be narrower than that (modelled; the verdict is taken again with them):\n\n";
  for (const auto& [text, rows] : groups) {
    std::string names;
    for (size_t i = 0; i < rows.size(); ++i) names += (i ? ", " : "") + rows[i];
    out += "- " + names + ": " + text + "\n";
  }
  return out;
}

// Geometric means: per run, over the scenarios both sides ran ok in every
// run; then the rows' rule over them (Holm over the metrics' means).
void add_geomeans(PairComparison& p, const Side& reference, const Side& other, const CompareRule& rule,
                  const NoiseFile* noise) {
  for (Metric metric : kMetrics) {
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
  std::vector<stats::LevelDifference> diffs;
  std::vector<GeoMean*> means;
  for (auto& g : p.geomeans)
    if (!g.scenarios.empty()) {
      diffs.push_back(g.levels);
      means.push_back(&g);
    }
  const auto verdicts = stats::run_verdicts(diffs, rule.family_alpha, rule.min_effect);
  for (size_t i = 0; i < means.size(); ++i) {
    means[i]->verdict = verdict_of(verdicts[i]);
    settle(means[i]->verdict, means[i]->why, means[i]->resolution, means[i]->levels, rule);
  }
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

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same within noise";
    case Verdict::cannot_tell: return "cannot tell";
    case Verdict::not_recorded: return "not recorded";
  }
  return "?";
}

std::string to_string(CannotTell c) {
  switch (c) {
    case CannotTell::none: return "";
    case CannotTell::no_noise_estimate: return "no noise estimate";
    case CannotTell::interval_too_wide: return "interval too wide";
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
  c.verdict = Verdict::cannot_tell;  // until compare_reports' Holm step
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
  p.environment = diff_environments(a0.environment.facts(), b0.environment.facts());

  std::vector<std::string> names;
  for (const auto* side : {&reference, &other})
    for (const auto& run : side->runs)
      for (const auto& r : run.results)
        if (std::find(names.begin(), names.end(), r.scenario) == names.end()) names.push_back(r.scenario);

  // A side's status for a scenario: ok when ok in every run of it.
  auto side_rows = [](const Side& side, const std::string& name) {
    std::vector<const ScenarioResult*> rows;
    for (const auto& run : side.runs) rows.push_back(find_result(run, name));
    return rows;
  };
  for (const auto& name : names) {
    ScenarioComparison s;
    s.scenario = name;
    const auto ra = side_rows(reference, name), rb = side_rows(other, name);
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
    if (all_ok) {
      const ScenarioResult* a = ra.front();
      const ScenarioResult* b = rb.front();
      if (a->world_size != b->world_size)
        s.notes.push_back("world_size " + std::to_string(a->world_size) + " vs " + std::to_string(b->world_size));
      if (a->precision != b->precision)
        s.notes.push_back("precision " + to_string(a->precision) + " vs " + to_string(b->precision));
      if (device_kind(a->device) != device_kind(b->device)) s.notes.push_back("device " + a->device + " vs " + b->device);
      if (!a->optimizer.empty() && !b->optimizer.empty() && a->optimizer != b->optimizer)
        s.notes.push_back("optimizer " + a->optimizer + " vs " + b->optimizer);
      for (Metric metric : kMetrics) {
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
    }
    p.scenarios.push_back(std::move(s));
  }
  // Holm over every row of this comparison.
  std::vector<stats::LevelDifference> diffs;
  std::vector<MetricComparison*> rows;
  for (auto& s : p.scenarios)
    for (auto& m : s.metrics)
      if (m.reference_runs > 0) {
        diffs.push_back(m.levels);
        rows.push_back(&m);
      }
  const auto verdicts = stats::run_verdicts(diffs, rule.family_alpha, rule.min_effect);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]->verdict = verdict_of(verdicts[i]);
    settle(rows[i]->verdict, rows[i]->why, rows[i]->resolution, rows[i]->levels, rule);
  }

  add_geomeans(p, reference, other, rule, noise);
  return p;
}

std::string compare_markdown(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced) {
  std::string out = "# ftbench compare\n\n";
  if (pairs.empty()) return out;
  out += "Reference (A): `" + pairs.front().reference_name + "`" + run_summary(pairs.front().reference_run) +
         (pairs.front().reference_runs > 1 ? ", " + std::to_string(pairs.front().reference_runs) + " runs" : "") +
         "\n\n";
  out += "Rule: " + describe(rule) + "\n";
  for (const auto& p : pairs) {
    out += "\n## B = `" + p.other_name + "` vs A\n\n";
    out += "B:" + run_summary(p.other_run) + (p.other_runs > 1 ? ", " + std::to_string(p.other_runs) + " runs" : "") +
           "\n\n";
    if (!p.config.differences.empty()) {
      out += std::string(forced ? "**Configs differ (compared anyway: --force):** " : "**Configs differ:** ");
      for (size_t i = 0; i < p.config.differences.size(); ++i)
        out += (i ? ", " : "") + describe(p.config.differences[i]);
      out += ".\n\n";
    } else {
      out += "Configs: the same in every run-relevant key.";
      out += " Not compared (run-irrelevant): ";
      for (size_t i = 0; i < kRunIrrelevantConfigKeys.size(); ++i) out += (i ? ", " : "") + kRunIrrelevantConfigKeys[i];
      out += "; config.device without its index.\n\n";
    }
    if (!p.config.only_one.empty()) {
      out += "Recorded in one report only (an older or newer ftbench; not compared): ";
      for (size_t i = 0; i < p.config.only_one.size(); ++i) {
        const auto& d = p.config.only_one[i];
        out += (i ? ", " : "") + d.key + " (" + (d.reference.is_null() ? "B: " + value_text(d.other) : "A: " + value_text(d.reference)) + ")";
      }
      out += ".\n\n";
    }
    std::vector<std::vector<std::string>> rows{{"scenario", "A samples/s", "B samples/s", "B/A samples/s [95 % over runs]",
                                                "verdict", "B/A steady [95 % over runs]", "verdict", "notes"}};
    for (const auto& s : p.scenarios) {
      if (!s.both_ok()) {
        rows.push_back({s.scenario, status_text(s, true), status_text(s, false), "-", "-", "-", "-", status_notes(s)});
        continue;
      }
      const auto& t = s.metrics[0];
      const auto& st = s.metrics[1];
      std::string notes;
      for (size_t i = 0; i < s.notes.size(); ++i) notes += (i ? "; " : "") + s.notes[i];
      auto side = [](double v, int runs, int repeats) {
        return fixed(v, 1) + " (" + std::to_string(runs) + (runs == 1 ? " run" : " runs") + ", n=" +
               std::to_string(repeats) + ")";
      };
      rows.push_back({s.scenario, side(t.reference, t.reference_runs, t.reference_repeats),
                      side(t.other, t.other_runs, t.other_repeats), ratio_text(t), verdict_text(t.verdict, t.why),
                      ratio_text(st), verdict_text(st.verdict, st.why), notes});
    }
    out += format_table(rows, {false, true, true, true, false, true, false, false}, TableStyle::markdown);
    out += "\n";
    for (const auto& g : p.geomeans) {
      const std::string what = g.metric == Metric::train_samples_per_s ? "samples/s" : "steady samples/s";
      out += "Geometric mean of B/A " + what + " over " + std::to_string(g.scenarios.size()) +
             " scenario(s) ok in every run of both (per run, then over runs): ";
      out += g.scenarios.empty() ? "-" : format_interval(g.ratio, "%.3f", "x");
      if (!g.note.empty()) out += " (" + g.note + ")";
      if (g.levels.basis != stats::NoiseBasis::none && !g.scenarios.empty())
        out += ", " + verdict_text(g.verdict, g.why) +
               (g.why == CannotTell::interval_too_wide ? ": " + settle_words(g.resolution) + " would settle it" : "");
      out += ".\n";
    }
    out += wide_rows_markdown(p, rule);
    std::string profiles;
    for (const auto& s : p.scenarios)
      if (s.profile) profiles += "- " + s.scenario + ": " + describe_diff(*s.profile, 3) + "\n";
    if (!profiles.empty())
      out += "\nOperator profiles (untimed profiling passes, B - A per profiled step; each line's share is of the "
             "step's change):\n\n" + profiles;
    if (p.environment.differences.empty()) {
      out += "\nEnvironment: no difference in the keys compared.\n";
    } else {
      out += "\nEnvironment, what differs:\n\n";
      for (const auto& d : p.environment.differences)
        out += "- " + d.key + ": A " + value_text(d.reference) + ", B " + value_text(d.other) + "\n";
    }
    out += "\nThe same in both: ";
    for (size_t i = 0; i < p.environment.same.size(); ++i) out += (i ? ", " : "") + p.environment.same[i];
    out += ".\n";
    if (!p.environment.unrecorded.empty()) {
      out += "Recorded in neither: ";
      for (size_t i = 0; i < p.environment.unrecorded.size(); ++i) out += (i ? ", " : "") + p.environment.unrecorded[i];
      out += ".\n";
    }
  }
  return out;
}

json compare_to_json(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced) {
  json comparisons = json::array();
  for (const auto& p : pairs) {
    auto diffs = [](const std::vector<KeyDifference>& v) {
      json a = json::array();
      for (const auto& d : v) a.push_back({{"key", d.key}, {"reference", d.reference}, {"other", d.other}});
      return a;
    };
    json scenarios = json::array();
    for (const auto& s : p.scenarios) {
      json metrics = json::object();
      for (const auto& m : s.metrics) {
        json j = {{"verdict", to_string(m.verdict)},
                  {"cannot_tell_reason", why_json(m.why)},
                  {"settle", settle_json(m.why, m.resolution)}};
        if (m.verdict != Verdict::not_recorded) {
          j["ratio"] = interval_json(m.ratio);
          j["reference_level"] = m.reference;
          j["other_level"] = m.other;
          j["reference_runs"] = m.reference_runs;
          j["other_runs"] = m.other_runs;
          j["reference_repeats"] = m.reference_repeats;
          j["other_repeats"] = m.other_repeats;
          j["test"] = {{"basis", stats::to_string(m.levels.basis)},
                       {"df", m.levels.df},
                       {"test_df", m.levels.test_df},
                       {"log_ratio", m.levels.diff},
                       {"se", std::isfinite(m.levels.se) ? json(m.levels.se) : json(nullptr)},
                       {"p_two_sided", std::isfinite(m.levels.p_two_sided()) ? json(m.levels.p_two_sided())
                                                                            : json(nullptr)}};
        }
        metrics[to_string(m.metric)] = std::move(j);
      }
      scenarios.push_back({{"scenario", s.scenario},
                           {"reference", side_json(s, true)},
                           {"other", side_json(s, false)},
                           {"compared", s.both_ok()},
                           {"notes", s.notes},
                           {"metrics", std::move(metrics)}});
      if (s.profile) scenarios.back()["profile_diff"] = profile_diff_json(*s.profile);
    }
    json geomeans = json::object();
    for (const auto& g : p.geomeans)
      geomeans[to_string(g.metric)] = {{"ratio", g.scenarios.empty() ? json(nullptr) : interval_json(g.ratio)},
                                       {"verdict", to_string(g.verdict)},
                                       {"cannot_tell_reason", why_json(g.why)},
                                       {"settle", settle_json(g.why, g.resolution)},
                                       {"scenarios", g.scenarios},
                                       {"note", g.note}};
    comparisons.push_back({{"reference", p.reference_name},
                           {"other", p.other_name},
                           {"reference_runs", p.reference_runs},
                           {"other_runs", p.other_runs},
                           {"config",
                            {{"comparable", p.config.comparable()},
                             {"differences", diffs(p.config.differences)},
                             {"recorded_in_one_only", diffs(p.config.only_one)}}},
                           {"scenarios", std::move(scenarios)},
                           {"geometric_mean", std::move(geomeans)},
                           {"environment",
                            {{"differences", diffs(p.environment.differences)},
                             {"same", p.environment.same},
                             {"recorded_in_neither", p.environment.unrecorded}}}});
  }
  return {{"schema", "ftbench.compare/3"},
          {"reference", pairs.empty() ? json(nullptr) : json(pairs.front().reference_name)},
          {"rule",
           {{"text", describe(rule)},
            {"level", rule.level},
            {"family_alpha", rule.family_alpha},
            {"min_effect", rule.min_effect},
            {"ratio", "other / reference; > 1 = other faster"}}},
          {"run_irrelevant_config_keys", kRunIrrelevantConfigKeys},
          {"forced", forced},
          {"comparisons", std::move(comparisons)}};
}

}  // namespace ftb
