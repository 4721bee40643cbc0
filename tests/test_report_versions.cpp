// Report versions and bad report input: every committed report (v1 ones
// included) stays readable, the v1 -> v2 upgrade, and a bad value names the
// file and its JSON path (results[3].wall_time_s) for every command that
// reads reports (they all read through read_report).
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/record/report.h"
#include "reports/analysis/report_json.h"
#include "reports/record/report_upgrade.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ftb::InputError& e) {
    return e.what();
  }
  return "";
}

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> subfolders(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      struct stat st {};
      if (name[0] != '.' && ::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        out.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  return out;
}

// results/*/report.json and results/*/*/report.json
std::vector<std::string> committed_reports() {
  std::vector<std::string> out;
  for (const auto& run : subfolders(FTB_RESULTS_DIR)) {
    if (is_file(run + "/report.json")) out.push_back(run + "/report.json");
    for (const auto& sub : subfolders(run))
      if (is_file(sub + "/report.json")) out.push_back(sub + "/report.json");
  }
  return out;
}

// The smallest v2 report the reader accepts: one ok row with two repeats.
json minimal_report() {
  json sample = {{"wall_time_s", 10.0}, {"train_samples_per_s", 50.0}, {"train_tokens_per_s", 900.0},
                 {"val_acc", 0.8},      {"test_acc", 0.8},            {"peak_bytes", 1000},
                 {"step_ms_median", 20.0}, {"train_samples", 500},     {"steady_samples_per_s", 55.0}};
  json row = {{"scenario", "baseline"},
              {"status", "ok"},
              {"reason", ""},
              {"world_size", 1},
              {"device", "cpu"},
              {"precision", "fp32"},
              {"optimizer", "adam/loop"},
              {"wall_time_s", 10.0},
              {"throughput", {{"train_samples_per_s", 50.0}, {"train_tokens_per_s", 900.0}, {"train_samples", 500}}},
              {"accuracy", {{"val", 0.8}, {"test", 0.8}}},
              {"loss", {{"test", 0.4}}},
              {"epochs", json::array({{{"epoch", 1}, {"train_loss", 0.5}, {"train_acc", 0.7}, {"val_loss", 0.4},
                                       {"val_acc", 0.8}, {"time_s", 10.0}}})},
              {"memory", {{"peak_bytes", 1000}, {"source", "process_max_rss"}}},
              {"repeats", 2},
              {"samples", {sample, sample}},
              {"efficiency", {{"step_ms_median", 20.0}, {"warmup_steps", 2}, {"model_tflops_per_s", 0.1}, {"mfu", 0.2}}},
              {"data", {{"loader_wait_s", 0.1}}},
              {"technique", {{"skipped_steps", 0}, {"capture_time_s", 0.0}, {"checkpoint_epoch", 0}}},
              {"extra", json::object()},
              {"threads", 2},
              {"distributed", nullptr}};
  return {{"schema", "ftbench.report/2"},
          {"environment", {{"host", "h"}, {"timestamp", "t"}, {"libtorch", {{"version", "2.11.0"}}}}},
          {"config", {{"preset", "smoke"}}},
          {"results", {row, row}}};
}

std::string read_error(const std::string& name, const json& j) {
  ftb::TempDir dir("ftb_test_versions");
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << j.dump();
  const std::string msg = error_of([&] { ftb::read_report(path); });
  CHECK(msg.find(path + ": ") == 0);                // names the file first
  CHECK(msg.find('\n') == std::string::npos);       // one line
  return msg;
}

}  // namespace

TEST_CASE("every committed report is readable, v1 ones through the upgrade") {
  const auto files = committed_reports();
  CHECK(files.size() >= 9);
  for (const auto& f : files) {
    CAPTURE(f);
    ftb::Report r;
    CHECK_NOTHROW(r = ftb::read_report(f));
    CHECK_FALSE(r.results.empty());
    for (const auto& row : r.results)
      if (row.status == ftb::Status::ok) CHECK(row.train_samples_per_s > 0);
  }
}

TEST_CASE("the writer writes version 5, and a minimal v2 report reads") {
  CHECK(std::string(ftb::kReportSchema) == "ftbench.report/5");
  ftb::TempDir dir("ftb_test_versions");
  const std::string path = dir.path() + "/r.json";
  std::ofstream(path) << minimal_report().dump();
  const ftb::Report r = ftb::read_report(path);
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].optimizer == "adam/loop");
  CHECK(ftb::report_to_json(r).at("schema") == "ftbench.report/5");
}

TEST_CASE("upgrade v1 -> v5: optimizer from extra.adam, integer config keys, threads and distributed") {
  json v1 = minimal_report();
  v1["schema"] = "ftbench.report/1";
  v1["config"]["batch_size"] = 32.0;
  v1["config"]["lr"] = 1.0;  // a double key stays a double
  for (auto& r : v1["results"]) r.erase("optimizer"), r.erase("threads"), r.erase("distributed");
  v1["results"][0]["extra"]["adam"] = "foreach";
  const json v2 = ftb::upgrade_report(v1);
  CHECK(v2.at("schema") == "ftbench.report/5");
  CHECK(v2.at("upgraded_from") == "ftbench.report/1");
  CHECK(v2.at("config").at("batch_size").is_number_integer());
  CHECK(v2.at("config").at("lr").is_number_float());
  CHECK(v2.at("results").at(0).at("optimizer") == "adam/foreach");
  CHECK(v2.at("results").at(1).at("optimizer") == "");  // not recorded
  CHECK(v2.at("results").at(1).at("threads") == 0);
  CHECK(v2.at("results").at(1).at("distributed").is_null());
  // a v5 report passes unchanged
  json v5 = minimal_report();
  v5["schema"] = "ftbench.report/5";
  CHECK(ftb::upgrade_report(v5) == v5);
}

TEST_CASE("upgrade v2 -> v5: a bootstrap interval keeps its bounds as low/high, its coverage unknown, no 95 % label") {
  json v2 = minimal_report();
  v2["results"][0]["intervals"] = {{"wall_time_s", {{"median", 10.0}, {"ci95_low", 9.0}, {"ci95_high", 11.0},
                                                    {"min", 9.0}, {"max", 11.0}, {"n", 3}}}};
  v2["results"][0]["speedup"] = {{"end_to_end", {{"median", 1.0}, {"ci95_low", 0.9}, {"ci95_high", 1.1},
                                                 {"min", 0.9}, {"max", 1.1}, {"n", 3}}}};
  const json v3 = ftb::upgrade_report(v2);
  CHECK(v3.at("schema") == "ftbench.report/5");
  CHECK(v3.at("upgraded_from") == "ftbench.report/2");
  for (const auto* group : {"intervals", "speedup"}) {
    const json& i = v3.at("results").at(0).at(group).begin().value();
    CHECK(i.at("low") == (std::string(group) == "intervals" ? 9.0 : 0.9));
    CHECK(i.at("coverage").is_null());
    CHECK(i.at("method").get<std::string>().find("percentile bootstrap") == 0);
    CHECK_FALSE(i.contains("ci95_low"));
  }
}

TEST_CASE("upgrade v3 -> v5: each row's technique settings and stack as the builds of v3 defined them") {
  json v3 = minimal_report();
  v3["schema"] = "ftbench.report/3";
  json fastest = v3["results"][1];
  fastest["scenario"] = "fastest";
  fastest["extra"]["stack"] = {"fused_adam", "bucketing"};
  json amp = v3["results"][1];
  amp["scenario"] = "amp";
  amp["parity"] = {{"baseline", "baseline"}, {"differs", json::array()}, {"technique", {"precision"}}};
  json unknown = v3["results"][1];
  unknown["scenario"] = "a_row_v3_never_had";
  v3["results"][1] = {{"scenario", "fused_adam"}};  // only what the upgrade reads
  v3["results"].push_back(fastest);
  v3["results"].push_back(amp);
  v3["results"].push_back(unknown);
  for (auto& r : v3["results"]) r.erase("technique_settings"), r.erase("stack");
  const json v4 = ftb::upgrade_report(v3);
  CHECK(v4.at("upgraded_from") == "ftbench.report/3");
  const json& rs = v4.at("results");
  CHECK(rs.at(1).at("technique_settings") == json{"optimizer"});
  CHECK(rs.at(1).at("stack") == json{"fused_adam"});
  CHECK(rs.at(2).at("stack") == json{"fused_adam", "bucketing"});           // fastest's extra.stack
  CHECK(rs.at(2).at("technique_settings") == json{"optimizer", "precision"});
  CHECK(rs.at(3).at("technique_settings") == json{"precision"});            // as v3 wrote it in parity
  CHECK(rs.at(4).at("technique_settings") == json::array());                // unknown: every difference named
  CHECK(rs.at(4).at("stack") == json::array());
}

TEST_CASE("upgrade v4 -> v5: only the label changes, its technique settings stay as that build wrote them") {
  json v4 = minimal_report();
  v4["schema"] = "ftbench.report/4";
  v4["results"][0]["technique_settings"] = {"precision"};  // the legacy table would say [] for baseline
  const json v5 = ftb::upgrade_report(v4);
  CHECK(v5.at("schema") == "ftbench.report/5");
  CHECK(v5.at("upgraded_from") == "ftbench.report/4");
  json expected = v4;
  expected["schema"] = "ftbench.report/5";
  expected["upgraded_from"] = "ftbench.report/4";
  CHECK(v5 == expected);
}

TEST_CASE("bad report input: one line naming the file and the JSON path") {
  SUBCASE("an unknown schema version") {
    json j = minimal_report();
    j["schema"] = "ftbench.report/9";
    const auto msg = read_error("v9.json", j);
    CHECK(msg.find("schema: 'ftbench.report/9'") != std::string::npos);
  }
  SUBCASE("not an object") {
    CHECK(read_error("array.json", json::array({1, 2})).find("expected an object, got array") != std::string::npos);
    json j = minimal_report();
    j["results"][1] = 7;
    CHECK(read_error("row.json", j).find("results[1]: expected an object, got number") != std::string::npos);
  }
  SUBCASE("a missing key, with its path") {
    json j = minimal_report();
    j["results"][1]["throughput"].erase("train_samples_per_s");
    CHECK(read_error("missing.json", j).find("results[1].throughput.train_samples_per_s") != std::string::npos);
    j = minimal_report();
    j["results"][0]["samples"][1].erase("wall_time_s");
    CHECK(read_error("missing2.json", j).find("results[0].samples[1].wall_time_s") != std::string::npos);
  }
  SUBCASE("a NaN time (written as null)") {
    json j = minimal_report();
    j["results"][1]["wall_time_s"] = nullptr;
    const auto msg = read_error("nan.json", j);
    CHECK(msg.find("results[1].wall_time_s: is NaN") != std::string::npos);
  }
  SUBCASE("a negative throughput, per repeat") {
    json j = minimal_report();
    j["results"][0]["samples"][1]["train_samples_per_s"] = -3.5;
    const auto msg = read_error("neg.json", j);
    CHECK(msg.find("results[0].samples[1].train_samples_per_s: is -3.5") != std::string::npos);
  }
  SUBCASE("a negative byte count") {
    json j = minimal_report();
    j["results"][1]["memory"]["peak_bytes"] = -1;
    CHECK(read_error("bytes.json", j).find("results[1].memory.peak_bytes: is -1") != std::string::npos);
  }
  SUBCASE("an unknown status and precision name their keys") {
    json j = minimal_report();
    j["results"][1]["status"] = "maybe";
    CHECK(read_error("status.json", j).find("results[1].status: unknown status 'maybe'") != std::string::npos);
    j = minimal_report();
    j["results"][0]["precision"] = "fp8";
    CHECK(read_error("precision.json", j).find("results[0].precision") != std::string::npos);
  }
}

TEST_CASE("a repeat's per-example test hits round-trip as base64, and bad bits name their key") {
  ftb::ScenarioResult r;
  r.scenario = "baseline";
  ftb::RepeatSample s;
  s.test_acc = 7.0 / 13;
  s.test_correct = {true, false, true, true, false, false, true, true, true, false, false, false, true};
  r.repeats = {s};
  const nlohmann::json j = ftb::to_json(r);
  const auto back = ftb::result_from_json(j, "results[0]");
  REQUIRE(back.repeats.size() == 1);
  CHECK(back.repeats[0].test_correct == s.test_correct);
  // A repeat without the key (older reports, a capped evaluation) reads with none.
  ftb::ScenarioResult none = r;
  none.repeats[0].test_correct.clear();
  CHECK(ftb::to_json(none).dump().find("test_correct") == std::string::npos);
  CHECK(ftb::result_from_json(ftb::to_json(none), "results[0]").repeats[0].test_correct.empty());
  auto bad = j;
  auto& bits = bad["samples"][0]["test_correct"];
  bits["examples"] = 12;  // a set bit beyond the count
  CHECK_THROWS_WITH_AS(ftb::result_from_json(bad, "results[0]"), doctest::Contains("test_correct.base64"),
                       ftb::InputError);
  bits["examples"] = 13;
  bits["base64"] = "not base64!";
  CHECK_THROWS_AS(ftb::result_from_json(bad, "results[0]"), ftb::InputError);
}
