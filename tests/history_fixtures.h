// Reports built in code for the history, regress and export tests: one ok
// result per scenario whose repeats have the given throughputs, the other
// metrics derived from them so every column moves together.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "reports/record/report.h"
#include "reports/analysis/report_json.h"

namespace ftb::testing {

struct FakeRun {
  std::string host = "sim";
  std::string timestamp = "2026-11-01T02:00:00Z";
  std::string commit = "abc123";
  std::string preset = "smoke";
  double lr = 0.001;
  std::map<std::string, std::vector<double>> throughput;  // scenario -> samples/s per repeat
  double test_acc = 0.85;
  int64_t peak_bytes = 100 << 20;
  // Per-example test hits of each repeat: the first round(test_acc x n)
  // examples right (so two runs' hits differ only by the accuracy's change);
  // 0: none kept (a report from before they were).
  int test_examples = 600;
  // Each repeat's own accuracy (repeat i: acc_by_repeat[i]), as repeats
  // retrained with their own seeds give; empty: test_acc for every repeat.
  std::vector<double> acc_by_repeat;
  bool seed_per_repeat = false;  // config.seed_per_repeat "on"
};

inline Report fake_report(const FakeRun& f) {
  Report report;
  report.environment = nlohmann::json{{"host", f.host},
                        {"cpu", {{"model", "Test CPU"}, {"logical_cores", 2}}},
                        {"gpus", nlohmann::json::array()},
                        {"timestamp", f.timestamp},
                        {"git_commit", f.commit}};
  report.config = {{"preset", f.preset}, {"lr", f.lr}, {"batch_size", 32}, {"out", "out/" + f.timestamp},
                   {"repeats", 5}, {"workload", {{"prep_time_s", 0.1}, {"train_examples", 1000}}}};
  if (f.seed_per_repeat) report.config["seed_per_repeat"] = "on";
  for (const auto& [scenario, values] : f.throughput) {
    ScenarioResult r;
    r.scenario = scenario;
    for (double v : values) {
      const std::size_t i = r.repeats.size();
      const double acc = i < f.acc_by_repeat.size() ? f.acc_by_repeat[i] : f.test_acc;
      RepeatSample s;
      s.train_samples_per_s = v;
      s.steady_samples_per_s = 1.05 * v;
      s.train_tokens_per_s = 100 * v;
      s.wall_time_s = 12000 / v;
      s.step_ms_median = 32000 / (1.05 * v);
      s.train_samples = 12000;
      s.val_acc = acc;
      s.test_acc = acc;
      s.peak_bytes = f.peak_bytes;
      if (f.test_examples > 0) {
        s.test_correct.assign(static_cast<std::size_t>(f.test_examples), false);
        const auto right = static_cast<std::size_t>(std::lround(acc * f.test_examples));
        for (std::size_t i = 0; i < right && i < s.test_correct.size(); ++i) s.test_correct[i] = true;
      }
      r.repeats.push_back(s);
    }
    aggregate_repeats(r);
    r.val_acc = r.test_acc = f.test_acc;
    report.results.push_back(r);
  }
  return report;
}

inline nlohmann::json fake_report_json(const FakeRun& f) { return report_to_json(fake_report(f)); }

// A night's repeats: throughput 100 x (1 - slowdown) with multiplicative
// noise (as tests/test_statistics.cpp's simulation).
inline std::vector<double> night(std::mt19937_64& rng, double slowdown, int repeats, double noise) {
  std::normal_distribution<double> n(0, noise);
  std::vector<double> out;
  for (int i = 0; i < repeats; ++i) out.push_back(100 * (1 - slowdown) * std::exp(n(rng)));
  return out;
}

// "2026-11-DDTHH:00:00Z" for night k (k < 24*28), sortable as text.
inline std::string night_time(int k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-11-%02dT%02d:00:00Z", 1 + k / 24, k % 24);
  return buf;
}

// The InputError message f throws, or "(no InputError)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// Night k's run on `host`, baseline's repeats at the given throughputs.
inline FakeRun run_at(int k, std::vector<double> throughput, const std::string& host = "sim") {
  FakeRun f;
  f.host = host;
  f.timestamp = night_time(k);
  f.commit = "c" + std::to_string(k);
  f.throughput["baseline"] = std::move(throughput);
  return f;
}

}  // namespace ftb::testing
