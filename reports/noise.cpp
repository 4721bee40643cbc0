#include "reports/noise.h"

#include <cmath>

#include "core/text/errors.h"
#include "core/text/json_fields.h"

namespace ftb {

using nlohmann::json;

NoiseFile estimate_noise(const std::vector<Report>& runs, const RunKey& key, const stats::RegressionRule& rule,
                         int window) {
  NoiseFile out;
  out.key = key;
  out.runs = static_cast<int>(runs.size());
  out.window = window;
  out.rule = rule;
  std::map<std::string, std::map<Metric, std::vector<std::vector<double>>>> values;  // scenario -> metric -> runs
  for (const auto& report : runs)
    for (const auto& r : report.results) {
      if (r.status != Status::ok || r.repeats.empty()) continue;
      for (Metric m : all_metrics()) values[r.scenario][m].push_back(metric_values(r.repeats, m));
    }
  const double z = stats::normal_quantile(1 - rule.alpha) + stats::normal_quantile(0.95);
  for (const auto& [scenario, metrics] : values)
    for (const auto& [m, per_run] : metrics) {
      NoiseEstimate e;
      std::vector<double> pooled;
      for (const auto& v : per_run) {
        e.run_medians.push_back(stats::median(v));
        pooled.insert(pooled.end(), v.begin(), v.end());
      }
      e.runs = static_cast<int>(per_run.size());
      e.repeats = static_cast<int>(pooled.size());
      e.cv_run_medians = stats::robust_cv(e.run_medians);
      e.cv_repeats = stats::robust_cv(pooled);
      e.noise_floor = 2 * e.cv_run_medians;
      const double n = static_cast<double>(e.repeats) / e.runs;  // repeats a night
      const double delta = z * e.cv_repeats * std::sqrt(1 / n + 1 / (window * n));
      e.min_detectable_change = std::max({rule.min_effect, e.noise_floor, std::expm1(delta)});
      out.scenarios[scenario][m] = e;
    }
  return out;
}

json to_json(const NoiseFile& n) {
  json scenarios = json::object();
  for (const auto& [scenario, metrics] : n.scenarios)
    for (const auto& [m, e] : metrics)
      scenarios[scenario][to_string(m)] = {{"runs", e.runs},
                                           {"repeats", e.repeats},
                                           {"run_medians", e.run_medians},
                                           {"cv_run_medians", e.cv_run_medians},
                                           {"cv_repeats", e.cv_repeats},
                                           {"noise_floor", e.noise_floor},
                                           {"min_detectable_change", e.min_detectable_change}};
  return {{"schema", kNoiseSchema},
          {"machine", n.key.machine},
          {"preset", n.key.preset},
          {"config_hash", n.key.config_hash},
          {"runs", n.runs},
          {"window", n.window},
          {"rule", {{"alpha", n.rule.alpha}, {"rank_alpha", n.rule.rank_alpha}, {"min_effect", n.rule.min_effect}}},
          {"method",
           "A/A: the same config run `runs` times; cv = robust CV (1.4826 MAD / median); noise_floor = 2 x "
           "cv_run_medians; min_detectable_change = smallest relative change the regress rule's z-test catches "
           "95 % of the time with this many repeats against `window` such runs (sigma = cv_repeats), at least "
           "the rule's min_effect and the noise floor"},
          {"scenarios", scenarios}};
}

NoiseFile read_noise_file(const std::string& path) {
  const json j = read_json_file(path);
  NoiseFile n;
  try {
    JsonFields f(j, "");
    if (f.string("schema") != kNoiseSchema)
      throw InputError("schema is '" + f.string("schema") + "', expected '" + kNoiseSchema + "'");
    n.key.machine = f.string("machine");
    n.key.preset = f.string("preset");
    n.key.config_hash = f.string("config_hash");
    n.runs = static_cast<int>(f.integer("runs"));
    n.window = static_cast<int>(f.integer("window"));
    JsonFields rule = f.object("rule");
    n.rule.alpha = rule.number("alpha");
    n.rule.rank_alpha = rule.number("rank_alpha");
    n.rule.min_effect = rule.number("min_effect");
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
        e.cv_run_medians = ef.number("cv_run_medians");
        e.cv_repeats = ef.number("cv_repeats");
        e.noise_floor = ef.number("noise_floor");
        e.min_detectable_change = ef.number("min_detectable_change");
        n.scenarios[scenario][m] = e;
      }
    }
  } catch (const InputError& e) {
    input_error(path, e.what());
  }
  return n;
}

const NoiseEstimate* find_noise(const NoiseFile& n, const std::string& scenario, Metric m) {
  auto s = n.scenarios.find(scenario);
  if (s == n.scenarios.end()) return nullptr;
  auto e = s->second.find(m);
  return e == s->second.end() ? nullptr : &e->second;
}

}  // namespace ftb
