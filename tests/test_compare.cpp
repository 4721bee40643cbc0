// ftbench compare's logic on reports built in code: verdicts (a clear 20 %
// faster machine, an A/A pair, too few repeats, v1 reports without
// steady-state samples), the geometric mean of known ratios, the config
// check (run-irrelevant keys, the device index, keys one report lacks), the
// environment diff, skipped rows, and the JSON and chart outputs.
#include "reports/compare.h"
#include "reports/compare_chart.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using nlohmann::json;
using ftb::Metric;
using ftb::Verdict;

namespace {

// A row of `n` repeats whose samples/s are `base` times a fixed +-1 % wobble
// (steady-state: 1.1x that), so A/A and 20 % are decided by the rule, not luck.
ftb::ScenarioResult row(const std::string& name, double base, int n) {
  ftb::ScenarioResult r;
  r.scenario = name;
  const double wobble[] = {1.0, 1.01, 0.99, 1.005, 0.995, 1.008, 0.992};
  for (int i = 0; i < n; ++i) {
    ftb::RepeatSample s;
    s.train_samples_per_s = base * wobble[i % 7];
    s.steady_samples_per_s = 1.1 * base * wobble[(i + 3) % 7];
    s.wall_time_s = 1000 / s.train_samples_per_s;
    r.repeats.push_back(s);
  }
  ftb::aggregate_repeats(r);
  return r;
}

ftb::Report report(std::vector<ftb::ScenarioResult> rows, const std::string& preset = "smoke") {
  ftb::Report rep;
  rep.config = {{"preset", preset}, {"epochs", 3}, {"out", "/tmp/a"}, {"repeats", 5}, {"device", "cuda:0"}};
  rep.environment = {{"host", "a"},
                     {"timestamp", "2026-12-01T00:00:00Z"},
                     {"libtorch", {{"version", "2.11.0"}, {"cuda", "13.0"}}},
                     {"gpus", json::array({{{"name", "NVIDIA H200"}}})},
                     {"git_commit", "abc"}};
  rep.results = std::move(rows);
  return rep;
}

// The line of `text` that contains `needle` (empty when none).
std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t start = text.rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
  return text.substr(start, text.find('\n', at) - start);
}

const ftb::ScenarioComparison& scenario(const ftb::PairComparison& p, const std::string& name) {
  for (const auto& s : p.scenarios)
    if (s.scenario == name) return s;
  FAIL("no scenario " << name);
  return p.scenarios.front();
}

}  // namespace

TEST_CASE("compare: a machine 20 % faster on every row is faster, with the ratio inside its interval") {
  const auto a = report({row("baseline", 100, 5), row("amp", 200, 5)});
  const auto b = report({row("baseline", 120, 5), row("amp", 240, 5)});
  const auto p = ftb::compare_reports(a, "A.json", b, "B.json");
  for (const char* name : {"baseline", "amp"}) {
    const auto& s = scenario(p, name);
    REQUIRE(s.both_ok());
    for (const auto& m : s.metrics) {
      CHECK(m.verdict == Verdict::faster);
      CHECK(m.ratio.estimate == doctest::Approx(1.2).epsilon(0.02));
      CHECK(m.ratio.low > 1.0);
      CHECK(m.ratio.low <= m.ratio.estimate);
      CHECK(m.ratio.high >= m.ratio.estimate);
      CHECK(m.rank.p_greater <= 0.05);
    }
  }
  // and the other way round
  const auto back = ftb::compare_reports(b, "B.json", a, "A.json");
  CHECK(scenario(back, "baseline").metrics[0].verdict == Verdict::slower);
  CHECK(back.geomeans[0].ratio.estimate == doctest::Approx(1 / 1.2).epsilon(0.02));
}

TEST_CASE("compare: an A/A pair is the same within noise, also when the repeats are shuffled") {
  const auto a = report({row("baseline", 100, 5)});
  auto b = a;
  std::swap(b.results[0].repeats[0], b.results[0].repeats[3]);
  const auto p = ftb::compare_reports(a, "A.json", b, "B.json");
  for (const auto& m : scenario(p, "baseline").metrics) {
    CHECK(m.verdict == Verdict::same);
    CHECK(m.ratio.estimate == doctest::Approx(1.0));
    CHECK(m.ratio.low < 1.0);
    CHECK(m.ratio.high > 1.0);
  }
}

TEST_CASE("compare: a significant change below the 2 % minimum effect is the same within noise") {
  // 1.5 % faster, perfectly separated: the CI excludes 1 and Mann-Whitney agrees, the effect rule does not.
  const auto m = ftb::compare_metric(Metric::train_samples_per_s, {100, 100.1, 100.2, 99.9, 100.05},
                                     {101.5, 101.6, 101.7, 101.4, 101.55}, ftb::CompareRule{});
  CHECK(m.ratio.low > 1.0);
  CHECK(m.rank.p_greater <= 0.05);
  CHECK(m.verdict == Verdict::same);
}

TEST_CASE("compare: fewer than 3 repeats on either side is n too small, not a guess") {
  const auto m = ftb::compare_metric(Metric::train_samples_per_s, {100, 101}, {150, 151, 152}, ftb::CompareRule{});
  CHECK(m.verdict == Verdict::n_too_small);
  CHECK(m.ratio.estimate == doctest::Approx(151.0 / 100.5));
  // three a side, completely separated: the smallest sample where the rule can say "faster"
  CHECK(ftb::compare_metric(Metric::train_samples_per_s, {100, 101, 99}, {150, 151, 152}, ftb::CompareRule{}).verdict ==
        Verdict::faster);
}

TEST_CASE("compare: steady-state samples a v1 report never recorded are 'not recorded', not a ratio") {
  auto a = report({row("baseline", 100, 3)});
  for (auto& s : a.results[0].repeats) s.steady_samples_per_s = 0;  // read from a v1 report
  const auto b = report({row("baseline", 100, 3)});
  const auto p = ftb::compare_reports(a, "A.json", b, "B.json");
  CHECK(scenario(p, "baseline").metrics[1].verdict == Verdict::not_recorded);
  CHECK(p.geomeans[1].scenarios.empty());
  CHECK(std::isnan(p.geomeans[1].ratio.estimate));
  CHECK_FALSE(p.geomeans[1].note.empty());
}

TEST_CASE("compare: the geometric mean of known ratios, over the rows ok in both") {
  auto skipped = row("cuda_graph", 1, 0);
  skipped.status = ftb::Status::skipped;
  skipped.reason = "needs CUDA";
  const auto a = report({row("baseline", 100, 5), row("amp", 100, 5), skipped, row("only_a", 100, 5)});
  const auto b = report({row("baseline", 200, 5), row("amp", 50, 5), row("cuda_graph", 100, 5), row("only_b", 1, 5)});
  const auto p = ftb::compare_reports(a, "A.json", b, "B.json");
  const auto& g = p.geomeans[0];
  CHECK(g.scenarios == std::vector<std::string>{"baseline", "amp"});
  CHECK(g.ratio.estimate == doctest::Approx(1.0));  // sqrt(2 * 0.5)
  CHECK(g.ratio.min == doctest::Approx(0.5));
  CHECK(g.ratio.max == doctest::Approx(2.0));
  CHECK(g.ratio.low < 1.0);
  CHECK(g.ratio.high > 1.0);
  CHECK(g.ratio.n == 2);

  const auto both = ftb::compare_reports(a, "A.json", report({row("baseline", 120, 5), row("amp", 150, 5)}), "C.json");
  CHECK(both.geomeans[0].ratio.estimate == doctest::Approx(std::sqrt(1.2 * 1.5)).epsilon(0.01));

  // skipped and one-sided rows are listed with their status, without a ratio
  const auto& cg = scenario(p, "cuda_graph");
  CHECK_FALSE(cg.both_ok());
  CHECK(cg.reference_status == ftb::Status::skipped);
  CHECK(cg.reference_reason == "needs CUDA");
  CHECK_FALSE(scenario(p, "only_a").in_other);
  CHECK_FALSE(scenario(p, "only_b").in_reference);
  CHECK(p.scenarios.back().scenario == "only_b");  // reference order, then B's extra rows
  const std::string md = ftb::compare_markdown({p}, ftb::CompareRule{}, false);
  const std::string cuda_graph_row = line_with(md, "| cuda_graph ");
  CHECK(cuda_graph_row.find(" skipped |") != std::string::npos);
  CHECK(cuda_graph_row.find("no ratio; A skipped: needs CUDA") != std::string::npos);
  CHECK(line_with(md, "| only_a ").find(" not run ") != std::string::npos);
}

TEST_CASE("compare: geometric mean of ratios over one repeat each says why its interval is no interval") {
  const auto p = ftb::compare_reports(report({row("baseline", 100, 1)}), "A", report({row("baseline", 150, 1)}), "B");
  const auto& g = p.geomeans[0];
  CHECK(g.ratio.estimate == doctest::Approx(1.5));
  CHECK(g.ratio.low == doctest::Approx(1.5));
  CHECK(g.note == "one repeat on each side in every scenario: no interval");
  // one repeat on one side: an interval, flagged as too narrow
  const auto mixed = ftb::compare_reports(report({row("baseline", 100, 1)}), "A", report({row("baseline", 150, 3)}), "B");
  CHECK(mixed.geomeans[0].note.find("1 of 1 scenarios have one repeat on a side") == 0);
  CHECK(scenario(p, "baseline").metrics[0].verdict == Verdict::n_too_small);
}

TEST_CASE("compare: configs differ in run-relevant keys only") {
  const json a = {{"preset", "smoke"}, {"epochs", 3},      {"out", "/x"},    {"repeats", 1}, {"scenarios", json::array()},
                  {"device", "cuda:0"}, {"batch_size", 32.0}, {"workload", {{"train_examples", 4200}, {"prep_time_s", 0.4}}}};
  json b = a;
  b["out"] = "/y";
  b["repeats"] = 5;
  b["scenarios"] = {"baseline"};
  b["device"] = "cuda:1";
  b["batch_size"] = 32;  // v1 wrote 32.0
  b["workload"]["prep_time_s"] = 0.2;
  b["adam"] = "auto";  // a key an older ftbench did not have
  auto c = ftb::check_configs(a, b);
  CHECK(c.comparable());
  REQUIRE(c.only_one.size() == 1);
  CHECK(c.only_one[0].key == "adam");
  CHECK(c.only_one[0].reference.is_null());

  b["preset"] = "mfu";
  b["workload"]["train_examples"] = 2000;
  b["device"] = "cpu";
  c = ftb::check_configs(a, b);
  CHECK_FALSE(c.comparable());
  std::vector<std::string> keys;
  for (const auto& d : c.differences) keys.push_back(d.key);
  CHECK(keys == std::vector<std::string>{"preset", "device", "workload.train_examples"});  // preset first
  CHECK(ftb::describe(c.differences[0]) == "preset ('smoke' vs 'mfu')");
}

TEST_CASE("compare: the environment diff lists only keys that differ, and what is the same") {
  auto a = report({});
  auto b = report({});
  b.environment["git_commit"] = "def";
  b.environment["gpus"] = json::array({{{"name", "NVIDIA A100"}}, {{"name", "NVIDIA A100"}}});
  b.environment["git_dirty"] = true;
  const auto d = ftb::diff_environments(a.environment, b.environment);
  std::vector<std::string> keys;
  for (const auto& k : d.differences) keys.push_back(k.key);
  CHECK(keys == std::vector<std::string>{"GPUs", "git commit", "git dirty"});
  CHECK(d.differences[0].reference == "NVIDIA H200");
  CHECK(d.differences[0].other == "NVIDIA A100, NVIDIA A100");
  CHECK(d.differences[2].reference.is_null());  // not recorded in A
  CHECK(std::find(d.same.begin(), d.same.end(), "LibTorch") != d.same.end());
  CHECK(std::find(d.same.begin(), d.same.end(), "CUDA") != d.same.end());
}

TEST_CASE("compare: the JSON and the chart carry every comparison") {
  const auto a = report({row("baseline", 100, 5), row("amp", 200, 5)});
  const auto b = report({row("baseline", 120, 5), row("amp", 240, 5)});
  const auto c = report({row("baseline", 100, 5), row("amp", 200, 5)});
  const std::vector<ftb::PairComparison> pairs{ftb::compare_reports(a, "A", b, "B"), ftb::compare_reports(a, "A", c, "C")};
  const json j = ftb::compare_to_json(pairs, ftb::CompareRule{}, false);
  CHECK(j.at("schema") == "ftbench.compare/1");
  CHECK(j.at("reference") == "A");
  REQUIRE(j.at("comparisons").size() == 2);
  const json& first = j.at("comparisons").at(0);
  CHECK(first.at("other") == "B");
  CHECK(first.at("config").at("comparable") == true);
  const json& base = first.at("scenarios").at(0);
  CHECK(base.at("scenario") == "baseline");
  CHECK(base.at("metrics").at("train_samples_per_s").at("verdict") == "faster");
  CHECK(base.at("metrics").at("train_samples_per_s").at("ratio").at("ci95_low").get<double>() > 1);
  CHECK(first.at("geometric_mean").at("train_samples_per_s").at("ratio").at("median").get<double>() ==
        doctest::Approx(1.2).epsilon(0.02));
  CHECK(j.at("comparisons").at(1).at("scenarios").at(0).at("metrics").at("train_samples_per_s").at("verdict") ==
        "same within noise");

  const json spec = ftb::compare_chart_spec(pairs);
  CHECK(spec.at("data").at("values").size() == 8);  // 2 reports x 2 scenarios x 2 metrics
  const json& layers = spec.at("spec").at("layer");
  CHECK(layers.at(0).at("mark").at("type") == "rule");
  CHECK(layers.at(0).at("encoding").at("y").at("datum") == 1);
  CHECK(layers.at(1).at("mark").at("type") == "errorbar");
  const std::string md = ftb::compare_markdown(pairs, ftb::CompareRule{}, false);
  CHECK(md.find("## B = `B` vs A") != std::string::npos);
  CHECK(md.find("## B = `C` vs A") != std::string::npos);
  CHECK(md.find("p <= 0.05") != std::string::npos);  // the rule is stated
  CHECK(md.find("at least 1.02") != std::string::npos);
}
