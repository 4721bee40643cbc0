// Exporters: github-action-benchmark's custom tools and Bencher's BMF, field
// names and values checked against a report built in code and against the
// committed smoke report's own intervals.
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/views/exports.h"
#include "reports/analysis/intervals.h"
#include "tests/history_fixtures.h"

#include <doctest/doctest.h>

#include <set>

using nlohmann::json;
using namespace ftb;

namespace {
Report two_rows() {
  testing::FakeRun f;
  f.throughput["baseline"] = {100, 110, 90};
  f.throughput["amp"] = {200};
  return testing::fake_report(f);
}
}  // namespace

TEST_CASE("export customBiggerIsBetter / customSmallerIsBetter: github-action-benchmark's fields") {
  const Report r = two_rows();
  const json bigger = export_report(r, parse_export_format("customBiggerIsBetter", "--format"));
  REQUIRE(bigger.is_array());
  REQUIRE(bigger.size() == 4);  // 2 scenarios x (train, steady)
  // Results are in report order: amp first (std::map in the fixture).
  const json* train = nullptr;
  for (const auto& e : bigger) {
    CHECK(std::set<std::string>{"name", "unit", "value", "range", "extra"} ==
          [&] { std::set<std::string> k; for (const auto& [key, v] : e.items()) k.insert(key); return k; }());
    CHECK(e.at("value").is_number());
    CHECK(e.at("range").is_string());
    CHECK(e.at("unit") == "samples/s");
    // The action parses range with /(\+-|±)\s*(\d.+)/ and Number(): plain "± <number>".
    const std::string range = e.at("range");
    CHECK(range.rfind("± ", 0) == 0);
    CHECK(std::isfinite(std::stod(range.substr(std::string("± ").size()))));
    if (e.at("name") == "smoke/baseline/train_samples_per_s") train = &e;
  }
  REQUIRE(train != nullptr);
  CHECK(train->at("value").get<double>() == 100);  // median of 100, 110, 90
  const json ci = result_intervals(*find_result(r, "baseline")).at("train_samples_per_s");
  CHECK(train->at("extra").get<std::string>().find("median of 3 repeats") == 0);
  CHECK(std::stod(train->at("range").get<std::string>().substr(3)) ==
        doctest::Approx((ci.at("high").get<double>() - ci.at("low").get<double>()) / 2).epsilon(1e-5));

  const json smaller = export_report(r, parse_export_format("customSmallerIsBetter", "--format"));
  REQUIRE(smaller.size() == 4);
  std::set<std::string> names;
  for (const auto& e : smaller) names.insert(e.at("name").get<std::string>() + " " + e.at("unit").get<std::string>());
  CHECK(names == std::set<std::string>{"smoke/amp/wall_time_s s", "smoke/amp/step_ms_median ms",
                                       "smoke/baseline/wall_time_s s", "smoke/baseline/step_ms_median ms"});
  for (const auto& e : smaller)
    if (e.at("name") == "smoke/baseline/wall_time_s") CHECK(e.at("value").get<double>() == doctest::Approx(120));
}

TEST_CASE("export bmf: Bencher Metric Format with the interval as lower/upper values") {
  const Report r = two_rows();
  const json bmf = export_report(r, parse_export_format("bmf", "--format"));
  REQUIRE(bmf.is_object());
  CHECK(bmf.size() == 2);
  const json& b = bmf.at("smoke/baseline");
  CHECK(b.size() == 4);
  for (const char* measure : {"throughput", "steady-throughput", "latency", "wall-time"}) {
    const json& m = b.at(measure);
    CHECK(m.size() == 3);
    CHECK(m.at("lower_value").get<double>() <= m.at("value").get<double>());
    CHECK(m.at("value").get<double>() <= m.at("upper_value").get<double>());
  }
  const json ci = result_intervals(*find_result(r, "baseline"));
  CHECK(b["throughput"]["value"] == 100.0);
  CHECK(b["throughput"]["lower_value"] == ci["train_samples_per_s"]["low"]);
  CHECK(b["throughput"]["upper_value"] == ci["train_samples_per_s"]["high"]);
  CHECK(b["latency"]["value"].get<double>() == doctest::Approx(ci["step_ms"]["median"].get<double>() * 1e6));
  // One repeat: no interval, lower = value = upper.
  CHECK(bmf["smoke/amp"]["throughput"]["lower_value"] == bmf["smoke/amp"]["throughput"]["value"]);
}

TEST_CASE("export from the committed smoke report: values are the report's own medians, bounds its repeats' order statistics") {
  const std::string path = std::string(FTB_FIXTURES_DIR) + "/../../results/cpu-smoke-2026-11-30/report.json";
  const json file = json::parse(read_text_file(path));
  const Report r = read_report(path);
  const json bmf = export_report(r, ExportFormat::bmf);
  for (const auto& res : file.at("results")) {
    if (res.at("status") != "ok") continue;
    const std::string name = "smoke/" + res.at("scenario").get<std::string>();
    const json& want = res.at("intervals").at("train_samples_per_s");
    CHECK(bmf.at(name).at("throughput").at("value").get<double>() ==
          doctest::Approx(want.at("median").get<double>()).epsilon(1e-12));
    // A v2 report's bootstrap bounds are recomputed as order statistics: with
    // its 3 repeats, [min, max] (coverage 0.75).
    const json& samples = res.at("samples");
    double lo = 1e300, hi = 0;
    for (const auto& x : samples) {
      lo = std::min(lo, x.at("train_samples_per_s").get<double>());
      hi = std::max(hi, x.at("train_samples_per_s").get<double>());
    }
    if (samples.size() <= 5) {
      CHECK(bmf.at(name).at("throughput").at("lower_value").get<double>() == doctest::Approx(lo).epsilon(1e-12));
      CHECK(bmf.at(name).at("throughput").at("upper_value").get<double>() == doctest::Approx(hi).epsilon(1e-12));
    }
  }
}

TEST_CASE("export: unknown formats name the flag, Google Benchmark points at ftb_micro") {
  CHECK_THROWS_WITH_AS(parse_export_format("csv", "--format"),
                       "--format: unknown format 'csv' (customBiggerIsBetter, customSmallerIsBetter, bmf)", InputError);
  std::string message;
  try {
    parse_export_format("googlebenchmark", "--format");
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("ftb_micro --benchmark_format=json") != std::string::npos);
}
