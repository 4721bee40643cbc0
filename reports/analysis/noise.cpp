#include "reports/analysis/noise.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "reports/analysis/two_level.h"

namespace ftb {

using nlohmann::json;

namespace {

// scenario -> metric -> per run (in run order) its repeats; runs where the scenario was not ok are absent.
using RunValues = std::map<std::string, std::map<Metric, std::vector<std::vector<double>>>>;

// Per run: scenario -> metric -> repeats (ok rows only).
std::vector<std::map<std::string, std::map<Metric, std::vector<double>>>> per_run(const std::vector<Report>& runs) {
  std::vector<std::map<std::string, std::map<Metric, std::vector<double>>>> out;
  for (const auto& report : runs) {
    auto& m = out.emplace_back();
    for (const auto& r : report.results) {
      if (r.status != Status::ok || r.repeats.empty()) continue;
      for (Metric metric : kRunMetrics) {
        auto v = metric_values(r.repeats, metric);
        bool positive = true;
        for (double x : v) positive = positive && x > 0 && std::isfinite(x);
        if (positive) m[r.scenario][metric] = std::move(v);
      }
    }
  }
  return out;
}

}  // namespace

stats::KnownNoise known_noise(const NoiseEstimate& e) { return {e.run_cv, e.run_df}; }

// What the nightly rule itself catches 90 % of the time: simulated through
// judge_nights (power.h) with every scenario of the calibration at its own
// within- and between-run noise, `window` nights of history and the
// calibration's repeats a run — the rule's own degrees of freedom and Holm
// family, not a formula at the calibration's run df.
stats::PowerSetup calibrated_power_setup(const NoiseFile& n, Metric m) {
  stats::PowerSetup p;
  int repeats = 0, runs = 0;
  for (const auto& [scenario, metrics] : n.scenarios) {
    auto it = metrics.find(m);
    if (it == metrics.end()) continue;
    p.noise.push_back({scenario, it->second.within_cv, it->second.between_cv});
    repeats += it->second.repeats;
    runs += it->second.runs;
  }
  if (runs > 0) p.repeats = std::max(1, static_cast<int>(std::lround(1.0 * repeats / runs)));
  return p;
}

void set_min_detectable_changes(NoiseFile& n) {
  for (Metric m : kRunMetrics) {
    stats::PowerSetup p = calibrated_power_setup(n, m);
    p.nights = n.window;
    p.rule = n.rule;
    p.trials = kMinDetectableTrials;
    for (size_t i = 0; i < p.noise.size(); ++i)
      n.scenarios.at(p.noise[i].name).at(m).min_detectable_change =
          std::max(n.rule.min_effect, stats::min_detectable_slowdown(p, static_cast<int>(i)));
  }
}

NoiseFile estimate_noise(const std::vector<Report>& runs, const RunKey& key, const stats::NightlyRule& rule,
                         int window) {
  NoiseFile out;
  out.key = key;
  out.runs = static_cast<int>(runs.size());
  out.window = window;
  out.rule = rule;
  RunValues values;
  for (const auto& run : per_run(runs))
    for (const auto& [scenario, metrics] : run)
      for (const auto& [m, v] : metrics) values[scenario][m].push_back(v);
  out.series = std::max<int>(1, static_cast<int>(values.size()));
  for (const auto& [scenario, metrics] : values)
    for (const auto& [m, per] : metrics) {
      NoiseEstimate e;
      e.runs = static_cast<int>(per.size());
      for (const auto& v : per) {
        e.run_medians.push_back(stats::median(v));
        e.repeats += static_cast<int>(v.size());
      }
      const stats::RunNoise n = stats::estimate_run_noise(per);
      e.run_cv = std::isfinite(n.run_sd) ? n.run_sd : 0;
      e.run_df = n.run_df;
      e.within_cv = std::isfinite(n.within_sd) ? n.within_sd : 0;
      e.between_cv = std::isfinite(n.between_sd) ? n.between_sd : 0;
      e.between_share = std::isfinite(n.between_share) ? n.between_share : 0;
      out.scenarios[scenario][m] = e;
    }
  // Speed-ups against baseline, run by run: both rows of one run share its luck.
  const auto by_run = per_run(runs);
  for (auto& [scenario, metrics] : out.scenarios) {
    if (scenario == kNoiseBaseline) continue;
    for (auto& [m, e] : metrics) {
      std::vector<double> logs;
      for (const auto& run : by_run) {
        const auto row = run.find(scenario), base = run.find(kNoiseBaseline);
        if (row == run.end() || base == run.end() || !row->second.count(m) || !base->second.count(m)) continue;
        // run_level is already the log of the run's level.
        logs.push_back(stats::run_level(row->second.at(m)) - stats::run_level(base->second.at(m)));
      }
      if (logs.size() < 2) continue;
      double mean = 0, ss = 0;
      for (double x : logs) mean += x / static_cast<double>(logs.size());
      for (double x : logs) ss += (x - mean) * (x - mean);
      e.speedup_df = static_cast<double>(logs.size() - 1);
      e.speedup_cv = std::sqrt(ss / e.speedup_df);
    }
  }
  return out;
}

Speedups with_run_noise(Speedups s, const std::string& scenario, const NoiseFile& noise, int* replaced) {
  auto widen = [&](stats::Interval& i, Metric m) {
    const NoiseEstimate* e = find_noise(noise, scenario, m);
    if (!e || !std::isfinite(e->speedup_cv) || e->speedup_df < 1 || !(i.estimate > 0)) return;
    const double half = stats::t_quantile(0.975, e->speedup_df) * e->speedup_cv;
    i.low = i.estimate * std::exp(-half);
    i.high = i.estimate * std::exp(half);
    i.n = static_cast<int>(e->speedup_df) + 1;
    i.coverage = 0.95;
    i.method = stats::IntervalMethod::t_run_noise;
    if (replaced) ++*replaced;
  };
  widen(s.end_to_end, Metric::train_samples_per_s);
  widen(s.steady_state, Metric::steady_samples_per_s);
  return s;
}

namespace {

using RunsByScenario = std::vector<std::map<std::string, std::map<Metric, std::vector<double>>>>;

// Regress: run t as tonight, the others (in order) as its history.
void aa_regress(AaCheck& aa, const RunsByScenario& by_run, const stats::NightlyRule& rule) {
  const int k = static_cast<int>(by_run.size());
  for (int t = 0; t < k; ++t) {
    std::vector<stats::NightSeries> series;
    std::vector<std::string> names;
    for (const auto& [scenario, metrics] : by_run[t]) {
      auto it = metrics.find(Metric::train_samples_per_s);
      if (it == metrics.end()) continue;
      stats::NightSeries s;
      s.tonight = it->second;
      for (int j = 0; j < k; ++j) {
        if (j == t) continue;
        auto sc = by_run[j].find(scenario);
        if (sc == by_run[j].end() || !sc->second.count(Metric::train_samples_per_s)) continue;
        s.nights.push_back(sc->second.at(Metric::train_samples_per_s));
      }
      series.push_back(std::move(s));
      names.push_back(scenario);
    }
    const auto v = stats::judge_nights(series, rule);
    // A night counts when at least one of its rows could be judged (with too
    // few runs every row is "insufficient history": no alarm, and no evidence).
    bool judged = false;
    for (const auto& x : v) judged = judged || x.outcome != stats::Verdict::insufficient;
    if (!judged) continue;
    ++aa.regress_nights;
    bool alarmed = false;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i].outcome == stats::Verdict::worse) {
        alarmed = true;
        aa.regress_alarmed.push_back("run-" + std::to_string(t + 1) + ": " + names[i]);
      }
    aa.regress_alarms += alarmed;
  }
}

// Compare: every pair, one run a side, the run-to-run noise from the other runs.
void aa_compare(AaCheck& aa, const RunsByScenario& by_run) {
  const int k = static_cast<int>(by_run.size());
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b) {
      std::vector<stats::LevelDifference> rows;
      std::vector<std::string> names;
      for (const auto& [scenario, metrics] : by_run[a])
        for (const auto& [m, va] : metrics) {
          auto sb = by_run[b].find(scenario);
          if (sb == by_run[b].end() || !sb->second.count(m)) continue;
          std::vector<std::vector<double>> others;
          for (int j = 0; j < k; ++j) {
            if (j == a || j == b) continue;
            auto sj = by_run[j].find(scenario);
            if (sj != by_run[j].end() && sj->second.count(m)) others.push_back(sj->second.at(m));
          }
          std::optional<stats::KnownNoise> noise;
          const stats::RunNoise n = stats::estimate_run_noise(others);
          if (std::isfinite(n.run_sd) && n.run_sd > 0) noise = stats::KnownNoise{n.run_sd, n.run_df};
          rows.push_back(stats::compare_levels({stats::run_level(va)}, {stats::run_level(sb->second.at(m))}, noise));
          names.push_back(scenario + " " + to_string(m));
        }
      const auto verdicts = stats::run_verdicts(rows, 0.05, 0.02);
      bool judged = false;
      for (const auto& x : verdicts) judged = judged || x.verdict != stats::Verdict::insufficient;
      if (!judged) continue;  // too few other runs to estimate the noise: no evidence either way
      ++aa.compare_pairs;
      bool flagged = false;
      for (size_t i = 0; i < verdicts.size(); ++i)
        if (verdicts[i].reason.ruling == stats::Ruling::called) {
          flagged = true;
          aa.compare_flagged.push_back("run-" + std::to_string(b + 1) + " vs run-" + std::to_string(a + 1) + ": " +
                                       names[i] + (verdicts[i].verdict == stats::Verdict::better ? " faster" : " slower"));
        }
      aa.compare_verdicts += flagged;
    }
}

}  // namespace

AaCheck aa_check(const std::vector<Report>& runs, const stats::NightlyRule& rule) {
  AaCheck aa;
  const auto by_run = per_run(runs);
  aa_regress(aa, by_run, rule);
  aa_compare(aa, by_run);
  return aa;
}

json to_json(const NoiseFile& n) {
  json scenarios = json::object();
  for (const auto& [scenario, metrics] : n.scenarios)
    for (const auto& [m, e] : metrics)
      scenarios[scenario][to_string(m)] = {{"runs", e.runs},
                                           {"repeats", e.repeats},
                                           {"run_medians", e.run_medians},
                                           {"run_cv", e.run_cv},
                                           {"run_df", e.run_df},
                                           {"within_cv", e.within_cv},
                                           {"between_cv", e.between_cv},
                                           {"between_share", e.between_share},
                                           {"min_detectable_change", e.min_detectable_change}};
  for (const auto& [scenario, metrics] : n.scenarios)
    for (const auto& [m, e] : metrics)
      if (std::isfinite(e.speedup_cv))
        scenarios[scenario][to_string(m)].update({{"speedup_cv", e.speedup_cv}, {"speedup_df", e.speedup_df}});
  json j = {{"schema", kNoiseSchema},
            {"machine", n.key.machine},
            {"preset", n.key.preset},
            {"config_hash", n.key.config_hash},
            {"runs", n.runs},
            {"window", n.window},
            {"series", n.series},
            {"rule", {{"family_alpha", n.rule.family_alpha}, {"min_effect", n.rule.min_effect}, {"text", describe(n.rule)}}},
            {"method",
             "A/A: the same config run `runs` times in separate processes; log scale. run_cv = sd of the runs' "
             "levels (median of each run's repeats), df = runs - 1; within_cv = pooled sd of repeats around their "
             "run; between_cv = sqrt(max(0, run_cv^2 - kappa(n) within_cv^2 / n)); min_detectable_change = the "
             "slowdown the nightly rule catches 90 % of the time against `window` nights, simulated through the "
             "rule with every scenario at its own within_cv and between_cv (half of it shared by the night's "
             "scenarios), at least min_effect; speedup_cv = sd over runs of log(row level / baseline level) "
             "in the same run, df = such runs - 1"},
            {"scenarios", scenarios}};
  if (n.has_aa)
    j["aa_check"] = {{"regress_nights", n.aa.regress_nights},
                     {"regress_alarms", n.aa.regress_alarms},
                     {"regress_alarmed", n.aa.regress_alarmed},
                     {"compare_pairs", n.aa.compare_pairs},
                     {"compare_pairs_with_a_verdict", n.aa.compare_verdicts},
                     {"compare_flagged", n.aa.compare_flagged}};
  return j;
}

NoiseFile read_noise_file(const std::string& path) { return noise_from_json(read_json_file(path), path); }

NoiseFile noise_from_json(const json& j, const std::string& path) {
  NoiseFile n;
  try {
    JsonFields f(j, "");
    const std::string schema = f.string("schema");
    const bool v1 = schema == kNoiseSchemaV1;
    if (!v1 && schema != kNoiseSchema)
      throw InputError("schema is '" + schema + "', expected '" + kNoiseSchema + "' (or '" + kNoiseSchemaV1 + "')");
    n.key.machine = f.string("machine");
    n.key.preset = f.string("preset");
    n.key.config_hash = f.string("config_hash");
    n.runs = static_cast<int>(f.integer("runs"));
    n.window = static_cast<int>(f.integer("window"));
    JsonFields rule = f.object("rule");
    n.rule.min_effect = rule.number("min_effect");
    if (!v1) {
      n.rule.family_alpha = rule.number("family_alpha");
      n.series = static_cast<int>(f.integer("series"));
    }
    JsonFields scenarios = f.object("scenarios");
    for (const auto& [scenario, metrics] : f.at("scenarios").items()) {
      JsonFields sf = scenarios.object(scenario.c_str());
      for (const auto& [name, value] : metrics.items()) {
        (void)value;
        const Metric m = parse_metric(name, sf.name(name));
        JsonFields ef = sf.object(name.c_str());
        NoiseEstimate e;
        e.runs = static_cast<int>(ef.integer("runs"));
        e.repeats = static_cast<int>(ef.integer("repeats"));
        for (const auto& v : ef.array("run_medians")) e.run_medians.push_back(v.is_number() ? v.get<double>() : NAN);
        if (v1) {  // robust CVs of version 1: the run medians' is the run-to-run sd
          e.run_cv = ef.number("cv_run_medians");
          e.run_df = std::max(0, e.runs - 1);
          e.within_cv = ef.number("cv_repeats");
        } else {
          e.run_cv = ef.number("run_cv");
          e.run_df = ef.number("run_df");
          e.within_cv = ef.number("within_cv");
          e.between_cv = ef.number("between_cv");
          e.between_share = ef.number("between_share");
        }
        e.min_detectable_change = ef.number("min_detectable_change");
        if (ef.has("speedup_cv")) {  // since speed-ups got run-to-run intervals; older files lack it
          e.speedup_cv = ef.number("speedup_cv");
          e.speedup_df = ef.number("speedup_df");
        }
        n.scenarios[scenario][m] = e;
      }
    }
  } catch (const InputError& e) {
    input_error(path, e.what());
  }
  return n;
}

json run_noise_json(const NoiseFile& n, const std::string& source) {
  json j = to_json(n);
  j["source"] = source;
  return j;
}

const NoiseEstimate* find_noise(const NoiseFile& n, const std::string& scenario, Metric m) {
  auto s = n.scenarios.find(scenario);
  if (s == n.scenarios.end()) return nullptr;
  auto e = s->second.find(m);
  return e == s->second.end() ? nullptr : &e->second;
}

}  // namespace ftb
