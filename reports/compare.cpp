#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/text/text_format.h"
#include "reports/intervals.h"
#include "core/text/json_text.h"

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

// Dotted keys of a JSON object, nested objects flattened (arrays are values).
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && !value.empty())
      flatten(value, path, out);
    else
      out[path] = value;
  }
}

bool irrelevant(const std::string& key) {
  for (const auto& k : kRunIrrelevantConfigKeys)
    if (key == k || key.rfind(k + ".", 0) == 0) return true;
  return false;
}

// "cuda:1" -> "cuda": the kind of device, not which one.
json device_kind(const json& v) {
  if (!v.is_string()) return v;
  const std::string s = v.get<std::string>();
  return s.substr(0, s.find(':'));
}

std::string value_text(const json& v) {
  if (v.is_null()) return "not recorded";
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  if (v.is_number_float()) return shortest_double(v.get<double>());
  return json_text(v);
}

// A readable environment value: strings bare, GPU lists as their names.
json gpu_names(const json& gpus) {
  if (!gpus.is_array()) return gpus;
  std::string names;
  for (const auto& g : gpus) {
    const std::string name = g.is_object() && g.contains("name") && g["name"].is_string() ? g["name"].get<std::string>() : "?";
    names += (names.empty() ? "" : ", ") + name;
  }
  return names.empty() ? json("none") : json(names);
}

const json* at_path(const json& j, const std::string& path) {
  const json* at = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

struct EnvKey {
  const char* label;
  const char* path;
};
// In the order a reader scans a machine: accelerators, software stack, CPU, build.
constexpr EnvKey kEnvironmentKeys[] = {
    {"GPUs", "gpus"},
    {"driver", "cuda_driver"},
    {"CUDA", "libtorch.cuda"},
    {"cuDNN", "libtorch.cudnn"},
    {"NCCL", "libtorch.nccl"},
    {"LibTorch", "libtorch.version"},
    {"CPU model", "cpu.model"},
    {"logical cores", "cpu.logical_cores"},
    {"physical cores", "cpu.physical_cores"},
    {"available cores", "cpu.available_cores"},
    {"intra-op threads", "threads.intra_op"},
    {"inter-op threads", "threads.inter_op"},
    {"memory bytes", "memory_bytes"},
    {"fp32 matmul peak TFLOP/s (measured)", "peak_matmul_tflops.by_precision.fp32"},
    {"BLAS", "blas"},
    {"compiler", "compiler"},
    {"build type", "build_type"},
    {"git commit", "git_commit"},
    {"git dirty", "git_dirty"},
    {"host", "host"},
    {"OS", "os"},
    {"distro", "distro"},
};

json interval_json(const stats::Interval& i) { return to_json(i); }

// " (host vm, 2026-11-30T22:00:29Z, commit 30d3ca349ff8)" from the environment.
std::string run_summary(const json& env) {
  const std::pair<const char*, const char*> parts[] = {{"host", "host "}, {"timestamp", ""}, {"git_commit", "commit "}};
  std::string s;
  for (const auto& [key, label] : parts) {
    const json* v = at_path(env, key);
    if (v && v->is_string()) s += (s.empty() ? "" : ", ") + std::string(label) + v->get<std::string>();
  }
  return s.empty() ? "" : " (" + s + ")";
}

std::string ratio_text(const MetricComparison& m) {
  if (m.verdict == Verdict::not_recorded) return "-";
  return format_interval(m.ratio, "%.3f", "x");
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

}  // namespace

const std::vector<std::string> kRunIrrelevantConfigKeys = {
    "out", "repeats", "scenarios", "model_dir", "data", "vocab", "workload.prep_time_s", "workload.model_dir"};

std::string describe(const CompareRule& rule) {
  char buf[900];
  std::snprintf(buf, sizeof buf,
                "Ratio = B / A of the median over repeats of each row's per-repeat throughput (samples/s end to end, "
                "and steady-state samples/s: samples per step over the median step after warm-up), with a %.0f %% "
                "percentile-bootstrap interval (%d resamples, unpaired: different runs). A verdict needs at least %d "
                "repeats on each side (else \"n too small\": the ratio is shown, no verdict). B is faster (slower) "
                "when the interval lies above (below) 1, a one-sided Mann-Whitney test in that direction gives "
                "p <= %.2f (with 3 repeats a side only complete separation reaches it), and the ratio is at least "
                "%.2f (at most %.2f); otherwise same within noise.",
                100 * rule.level, rule.resamples, rule.min_repeats, rule.alpha, 1 + rule.min_effect,
                1 - rule.min_effect);
  return buf;
}

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same within noise";
    case Verdict::n_too_small: return "n too small";
    case Verdict::not_recorded: return "not recorded";
  }
  return "?";
}

MetricComparison compare_metric(Metric metric, const std::vector<double>& reference, const std::vector<double>& other,
                                const CompareRule& rule) {
  MetricComparison c;
  c.metric = metric;
  if (!recorded(reference) || !recorded(other)) return c;  // not_recorded
  c.reference = stats::median_interval(reference, rule.seed, rule.level, /*resamples=*/0);
  c.other = stats::median_interval(other, rule.seed, rule.level, /*resamples=*/0);
  c.ratio = stats::ratio_interval(other, reference, /*paired=*/false, rule.seed, rule.level, rule.resamples);
  c.rank = stats::mann_whitney(other, reference);
  const int n = static_cast<int>(std::min(reference.size(), other.size()));
  if (n < rule.min_repeats) {
    c.verdict = Verdict::n_too_small;
  } else if (c.ratio.low > 1 && c.rank.p_greater <= rule.alpha && c.ratio.estimate >= 1 + rule.min_effect) {
    c.verdict = Verdict::faster;
  } else if (c.ratio.high < 1 && c.rank.p_less <= rule.alpha && c.ratio.estimate <= 1 - rule.min_effect) {
    c.verdict = Verdict::slower;
  } else {
    c.verdict = Verdict::same;
  }
  return c;
}

ConfigCheck check_configs(const json& reference, const json& other) {
  std::map<std::string, json> a, b;
  flatten(reference, "", a);
  flatten(other, "", b);
  ConfigCheck check;
  for (const auto& [key, va] : a) {
    if (irrelevant(key)) continue;
    auto it = b.find(key);
    if (it == b.end()) {
      check.only_one.push_back({key, va, nullptr});
      continue;
    }
    const json& vb = it->second;
    const bool same = key == "device" ? device_kind(va) == device_kind(vb) : va == vb;  // 32.0 == 32 in nlohmann
    if (!same) check.differences.push_back({key, va, vb});
  }
  for (const auto& [key, vb] : b)
    if (!irrelevant(key) && !a.count(key)) check.only_one.push_back({key, nullptr, vb});
  // The preset first: it explains most of the others.
  std::stable_partition(check.differences.begin(), check.differences.end(),
                        [](const KeyDifference& d) { return d.key == "preset"; });
  return check;
}

std::string describe(const KeyDifference& d) {
  return d.key + " (" + value_text(d.reference) + " vs " + value_text(d.other) + ")";
}

EnvironmentDiff diff_environments(const json& reference, const json& other) {
  EnvironmentDiff diff;
  for (const auto& k : kEnvironmentKeys) {
    const json* a = at_path(reference, k.path);
    const json* b = at_path(other, k.path);
    json va = a ? *a : json(nullptr), vb = b ? *b : json(nullptr);
    if (std::string(k.path) == "gpus") {
      va = gpu_names(va);
      vb = gpu_names(vb);
    }
    if (va.is_null() && vb.is_null())
      diff.unrecorded.push_back(k.label);
    else if (va == vb)
      diff.same.push_back(k.label);
    else
      diff.differences.push_back({k.label, va, vb});
  }
  return diff;
}

PairComparison compare_reports(const Report& reference, const std::string& reference_name, const Report& other,
                               const std::string& other_name, const CompareRule& rule) {
  PairComparison p;
  p.reference_name = reference_name;
  p.other_name = other_name;
  p.reference_run = reference.environment;
  p.other_run = other.environment;
  p.config = check_configs(reference.config, other.config);
  p.environment = diff_environments(reference.environment, other.environment);

  std::vector<std::string> names;
  for (const auto& r : reference.results) names.push_back(r.scenario);
  for (const auto& r : other.results)
    if (!find_result(reference, r.scenario)) names.push_back(r.scenario);

  std::vector<stats::RatioSamples> ratios[2];
  std::vector<std::string> in_mean[2];
  int one_repeat[2] = {0, 0};   // scenarios with one repeat on both sides: no spread at all
  int one_a_side[2] = {0, 0};   // ... on at least one side: that side's noise is missing
  for (const auto& name : names) {
    ScenarioComparison s;
    s.scenario = name;
    const ScenarioResult* a = find_result(reference, name);
    const ScenarioResult* b = find_result(other, name);
    s.in_reference = a != nullptr;
    s.in_other = b != nullptr;
    if (a) {
      s.reference_status = a->status;
      s.reference_reason = a->reason;
    }
    if (b) {
      s.other_status = b->status;
      s.other_reason = b->reason;
    }
    if (a && b && a->status == Status::ok && b->status == Status::ok) {
      if (a->world_size != b->world_size)
        s.notes.push_back("world_size " + std::to_string(a->world_size) + " vs " + std::to_string(b->world_size));
      if (a->precision != b->precision)
        s.notes.push_back("precision " + to_string(a->precision) + " vs " + to_string(b->precision));
      if (device_kind(a->device) != device_kind(b->device)) s.notes.push_back("device " + a->device + " vs " + b->device);
      if (!a->optimizer.empty() && !b->optimizer.empty() && a->optimizer != b->optimizer)
        s.notes.push_back("optimizer " + a->optimizer + " vs " + b->optimizer);
      for (size_t m = 0; m < 2; ++m) {
        const Metric metric = kMetrics[m];
        const auto ref = metric_samples(*a, metric), oth = metric_samples(*b, metric);
        s.metrics.push_back(compare_metric(metric, ref, oth, rule));
        if (s.metrics.back().verdict == Verdict::not_recorded) continue;
        ratios[m].push_back({oth, ref});
        in_mean[m].push_back(name);
        if (ref.size() == 1 && oth.size() == 1) ++one_repeat[m];
        if (ref.size() == 1 || oth.size() == 1) ++one_a_side[m];
      }
    }
    p.scenarios.push_back(std::move(s));
  }

  for (size_t m = 0; m < 2; ++m) {
    GeoMean g;
    g.metric = kMetrics[m];
    g.scenarios = in_mean[m];
    g.ratio = stats::geomean_interval(ratios[m], rule.seed, rule.level, rule.resamples);
    if (ratios[m].empty())
      g.note = "no scenario ran ok in both with this metric recorded";
    else if (one_repeat[m] == static_cast<int>(ratios[m].size()))
      g.note = "one repeat on each side in every scenario: no interval";
    else if (one_a_side[m] > 0)
      g.note = std::to_string(one_a_side[m]) + " of " + std::to_string(ratios[m].size()) +
               " scenarios have one repeat on a side, whose noise the interval cannot see: it understates the "
               "uncertainty";
    p.geomeans.push_back(std::move(g));
  }
  return p;
}

std::string compare_markdown(const std::vector<PairComparison>& pairs, const CompareRule& rule, bool forced) {
  std::string out = "# ftbench compare\n\n";
  if (pairs.empty()) return out;
  out += "Reference (A): `" + pairs.front().reference_name + "`" + run_summary(pairs.front().reference_run) + "\n\n";
  out += "Rule: " + describe(rule) + "\n";
  for (const auto& p : pairs) {
    out += "\n## B = `" + p.other_name + "` vs A\n\n";
    out += "B:" + run_summary(p.other_run) + "\n\n";
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
    std::vector<std::vector<std::string>> rows{{"scenario", "A samples/s", "B samples/s", "B/A samples/s [95 % CI]",
                                                "verdict", "B/A steady [95 % CI]", "verdict", "notes"}};
    for (const auto& s : p.scenarios) {
      if (!s.both_ok()) {
        rows.push_back({s.scenario, status_text(s, true), status_text(s, false), "-", "-", "-", "-", status_notes(s)});
        continue;
      }
      const auto& t = s.metrics[0];
      const auto& st = s.metrics[1];
      std::string notes;
      for (size_t i = 0; i < s.notes.size(); ++i) notes += (i ? "; " : "") + s.notes[i];
      rows.push_back({s.scenario, fixed(t.reference.estimate, 1) + " (n=" + std::to_string(t.reference.n) + ")",
                      fixed(t.other.estimate, 1) + " (n=" + std::to_string(t.other.n) + ")", ratio_text(t),
                      to_string(t.verdict), ratio_text(st), to_string(st.verdict), notes});
    }
    out += format_table(rows, {false, true, true, true, false, true, false, false}, TableStyle::markdown);
    out += "\n";
    for (const auto& g : p.geomeans) {
      const std::string what = g.metric == Metric::train_samples_per_s ? "samples/s" : "steady samples/s";
      out += "Geometric mean of B/A " + what + " over " + std::to_string(g.scenarios.size()) +
             " scenario(s) ok in both: ";
      out += g.scenarios.empty() ? "-" : format_interval(g.ratio, "%.3f", "x");
      if (!g.note.empty()) out += " (" + g.note + ")";
      out += ".\n";
    }
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
        json j = {{"verdict", to_string(m.verdict)}};
        if (m.verdict != Verdict::not_recorded) {
          j["ratio"] = interval_json(m.ratio);
          j["reference_median"] = m.reference.estimate;
          j["other_median"] = m.other.estimate;
          j["reference_n"] = m.reference.n;
          j["other_n"] = m.other.n;
          j["mann_whitney"] = {{"u", m.rank.u},
                               {"p_greater", m.rank.p_greater},
                               {"p_less", m.rank.p_less},
                               {"exact", m.rank.exact}};
        }
        metrics[to_string(m.metric)] = std::move(j);
      }
      scenarios.push_back({{"scenario", s.scenario},
                           {"reference", side_json(s, true)},
                           {"other", side_json(s, false)},
                           {"compared", s.both_ok()},
                           {"notes", s.notes},
                           {"metrics", std::move(metrics)}});
    }
    json geomeans = json::object();
    for (const auto& g : p.geomeans)
      geomeans[to_string(g.metric)] = {{"ratio", g.scenarios.empty() ? json(nullptr) : interval_json(g.ratio)},
                                       {"scenarios", g.scenarios},
                                       {"note", g.note}};
    comparisons.push_back({{"reference", p.reference_name},
                           {"other", p.other_name},
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
  return {{"schema", "ftbench.compare/1"},
          {"reference", pairs.empty() ? json(nullptr) : json(pairs.front().reference_name)},
          {"rule",
           {{"text", describe(rule)},
            {"level", rule.level},
            {"alpha", rule.alpha},
            {"min_effect", rule.min_effect},
            {"min_repeats", rule.min_repeats},
            {"resamples", rule.resamples},
            {"ratio", "other / reference; > 1 = other faster"}}},
          {"run_irrelevant_config_keys", kRunIrrelevantConfigKeys},
          {"forced", forced},
          {"comparisons", std::move(comparisons)}};
}

}  // namespace ftb
