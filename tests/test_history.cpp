// The history store (reports/analysis/history.h): keys, idempotent adds,
// transactions, concurrent writers, schema version.
#include "core/base/files.h"
#include "reports/analysis/history.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/run_differences.h"
#include "reports/analysis/trend.h"
#include "tests/history_fixtures.h"
#include "tests/profile_fixtures.h"

#include <doctest/doctest.h>

#include <sqlite3.h>

#include <cmath>
#include <optional>
#include <thread>

using nlohmann::json;
using namespace ftb;
using namespace ftb::testing;

namespace {
// Rewrites a history file behind the store's back (an older or newer
// version, a stale key): `sql` run on it directly, the file closed after.
void rewrite_history_file(const std::string& db, const char* sql) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  const int rc = sqlite3_exec(raw, sql, nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  REQUIRE(rc == SQLITE_OK);
}
}  // namespace


TEST_CASE("history keys: machine from host, CPU and GPUs, config hash ignores output paths and repeats") {
  json env = {{"host", "box"}, {"cpu", {{"model", "EPYC"}}}, {"gpus", json::array()}};
  CHECK(machine_key(env) == "box | EPYC");
  env["gpus"] = json::array({{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA H200"}}, {{"name", "NVIDIA A100"}}});
  CHECK(machine_key(env) == "box | EPYC | 2x NVIDIA H200, NVIDIA A100");
  CHECK(error_of([&] { machine_key(json{{"cpu", {{"model", "x"}}}}); }).find("environment.host") != std::string::npos);

  const json a = {{"preset", "smoke"}, {"lr", 0.001}, {"out", "out/1"}, {"repeats", 3}, {"scenarios", {"baseline"}},
                  {"workload", {{"prep_time_s", 0.12}, {"vocab_size", 1559}}}};
  json b = a;
  b["out"] = "elsewhere";
  b["repeats"] = 5;
  b["scenarios"] = json::array();
  b["workload"]["prep_time_s"] = 0.5;
  b["profile"] = 5;  // the untimed profiling pass (fails without it ignored: every series broke at the version adding it)
  CHECK(config_hash(a) == config_hash(b));
  b["lr"] = 0.002;
  CHECK(config_hash(a) != config_hash(b));
  CHECK(config_differences(a, b) == std::vector<std::string>{"lr: 0.001 -> 0.002"});
  b = a;
  b["workload"]["vocab_size"] = 2000;
  CHECK(config_differences(a, b) == std::vector<std::string>{"workload.vocab_size: 1559 -> 2000"});
}

TEST_CASE("history add: one row per repeat, the whole report kept, the same report twice adds nothing") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  FakeRun f = run_at(0, {100, 101, 99});
  f.throughput["amp"] = {150, 151};
  const json j = fake_report_json(f);
  const auto first = store.add(j, "r0.json");
  CHECK(first.added);
  CHECK(first.repeats == 5);
  CHECK(first.run.machine == "sim | Test CPU");
  CHECK(first.run.git_commit == "c0");
  CHECK(first.run.time == night_time(0));
  // The same content again (even from another file name): idempotent.
  const auto again = store.add(json::parse(j.dump()), "copy.json");
  CHECK_FALSE(again.added);
  CHECK(again.run.id == first.run.id);
  CHECK(again.run.source == "r0.json");
  CHECK(store.run_count() == 1);
  CHECK(store.scenarios() == std::vector<std::string>{"amp", "baseline"});
  CHECK(store.report_json(first.run.id) == j);
  const auto series = store.series("baseline");
  REQUIRE(series.size() == 1);
  REQUIRE(series[0].repeats.size() == 3);
  CHECK(series[0].repeats[2].train_samples_per_s == 99);
  CHECK(series[0].repeats[0].wall_time_s == doctest::Approx(120));
  CHECK(series[0].repeats[0].peak_bytes == (100 << 20));
  // The --machine override files the run under another key.
  const auto other = store.add(fake_report_json(run_at(1, {100})), "r1.json", "ci-runner");
  CHECK(other.run.machine == "ci-runner");
  // Reopened as an existing store, everything is there.
  HistoryStore again_store(db, HistoryStore::Open::existing);
  CHECK(again_store.run_count() == 2);
}

TEST_CASE("history add: a bad report adds nothing (NaN time named, a failed transaction rolled back)") {
  TempDir dir("ftb_history");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  json nan_time = fake_report_json(run_at(0, {100, 101}));
  nan_time["results"][0]["samples"][1]["wall_time_s"] = nullptr;  // NaN is written as null
  CHECK(error_of([&] { store.add(nan_time, "nan.json"); }) ==
        "nan.json: results[0].samples[1].wall_time_s: is NaN (null in the file); times, throughputs and byte counts "
        "must be finite and >= 0");
  json negative = fake_report_json(run_at(0, {100, 101}));
  negative["results"][0]["samples"][0]["step_ms_median"] = -3.0;
  CHECK(error_of([&] { store.add(negative, "neg.json"); }).find("results[0].samples[0].step_ms_median: is -3") !=
        std::string::npos);
  // Two results of one scenario: the second's rows collide with the first's
  // inside the transaction, after the run row was inserted; all of it goes.
  json twice = fake_report_json(run_at(0, {100, 101}));
  twice["results"].push_back(twice["results"][0]);
  CHECK(error_of([&] { store.add(twice, "twice.json"); }).find("twice.json: scenario 'baseline' appears twice") == 0);
  CHECK(store.run_count() == 0);
  CHECK(store.scenarios().empty());
  json no_preset = fake_report_json(run_at(0, {100}));
  no_preset["config"].erase("preset");
  CHECK(error_of([&] { store.add(no_preset, "np.json"); }).find("np.json: missing key 'config.preset'") == 0);
}

TEST_CASE("history store: not a database, missing, or from a newer ftbench is an error naming the file") {
  TempDir dir("ftb_history");
  CHECK(error_of([&] { HistoryStore(dir.path() + "/none.db", HistoryStore::Open::existing); })
            .find("none.db: no such history file") != std::string::npos);
  write_file_atomic(dir.path() + "/report.json", std::string(4096, 'x'));
  CHECK(error_of([&] { HistoryStore(dir.path() + "/report.json", HistoryStore::Open::existing); })
            .find("report.json: ") == dir.path().size() + 1);
  const std::string db = dir.path() + "/h.db";
  { HistoryStore store(db, HistoryStore::Open::create); }
  rewrite_history_file(db, "UPDATE schema_version SET version = 99");
  CHECK(error_of([&] { HistoryStore(db, HistoryStore::Open::existing); })
            .find("history schema version 99 is newer") != std::string::npos);
}

TEST_CASE("history add: two writers at once (two connections, two threads) lose nothing") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  constexpr int kEach = 25;
  auto writer = [&](int first) {
    HistoryStore store(db, HistoryStore::Open::create);  // both may create the schema at once
    for (int k = first; k < first + kEach; ++k) store.add(fake_report_json(run_at(k, {100.0 + k})), "r.json");
  };
  std::thread a(writer, 0), b(writer, 1000);
  a.join();
  b.join();
  HistoryStore store(db, HistoryStore::Open::existing);
  CHECK(store.run_count() == 2 * kEach);
  CHECK(store.series("baseline").size() == 2 * kEach);
}

TEST_CASE("history schema 2: each run's environment and data hash stored, a version 1 file upgraded on open") {
  // Fails on version 1 (no environment column: facts.environment empty) and
  // on an upgrade that does not fill the old runs (their facts not recorded).
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  json j = fake_report_json(run_at(0, {100, 101}));
  j["config"]["workload"]["data_hash"] = "0123456789abcdef";
  {
    HistoryStore store(db, HistoryStore::Open::create);
    const auto added = store.add(j, "r0.json");
    CHECK(added.run.facts.environment.cpu_model() == "Test CPU");
    json r1 = fake_report_json(run_at(1, {100}));
    r1["config"]["workload"]["data_hash"] = "0123456789abcdef";
    store.add(r1, "r1.json");
    store.add(fake_report_json(run_at(2, {100})), "r2.json");  // an older ftbench: no data hash
  }
  // Made a version 1 file again: the columns dropped, the version set back.
  rewrite_history_file(db, "ALTER TABLE runs DROP COLUMN environment; ALTER TABLE runs DROP COLUMN data_hash; "
                       "ALTER TABLE repeats DROP COLUMN test_examples; ALTER TABLE repeats DROP COLUMN test_correct; "
                       "DROP TABLE duet_rows; DROP TABLE duets; UPDATE schema_version SET version = 1");
  HistoryStore store(db, HistoryStore::Open::existing);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  const auto series = store.series("baseline");
  REQUIRE(series.size() == 3);
  CHECK(series[0].run.facts.environment.cpu_model() == "Test CPU");
  CHECK(series[0].run.facts.environment.git_commit() == "c0");
  CHECK(series[0].run.facts.data_hash == "0123456789abcdef");
  CHECK(series[2].run.facts.data_hash.is_null());  // not recorded, not ""
  // Version 4: each repeat's per-example hits filled from the stored report.
  REQUIRE(!series[0].repeats.empty());
  CHECK(series[0].repeats[0].test_correct == report_from_json(j, "r0.json").results[0].repeats[0].test_correct);
  CHECK(series[0].repeats[0].test_correct.size() == 600);
  // Tonight's several runs left out of the window at once (the two runs
  // with the data's hash are one series; the older one, known by its data
  // path only, is another: run_differences.h's key table).
  const RunKey key = run_key(report_from_json(j, "r0.json"), "r0.json");
  CHECK(store.window(key, "baseline", 20, std::vector<std::string>{series[0].run.report_hash}).size() == 1);
  CHECK(store.window(key, "baseline", 20, std::vector<std::string>{series[0].run.report_hash, series[1].run.report_hash})
            .empty());
  CHECK(store.window(key, "baseline", 1, std::vector<std::string>{series[1].run.report_hash}).at(0).run.id ==
        series[0].run.id);
}

// Issue 29: history show lists, at a slowdown's change point, the operators
// that grew, where runs on both sides carry a profile of the row (the one
// implementation regress uses, suspects.h's add_operator_suspects): the
// newest profiled run of the level before (n5) against the oldest of the
// level after (n8), aten::addmm 30 ms a profiled step slower. Fails on a
// history show that lists environment facts only (no operator at the change
// point), or that named an operator that did not grow.
TEST_CASE("history show: the operators that grew at a change point, from profiles on both sides") {
  TempDir dir("ftb_history");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  std::mt19937_64 rng(5);
  auto add_night = [&](int k, double slowdown, std::optional<int64_t> addmm_ms) {
    json j = fake_report_json(run_at(k, night(rng, slowdown, 5, 0.01)));
    if (addmm_ms) j["results"][0]["profile"] = to_json(addmm_profile(*addmm_ms));
    store.add(j, "n" + std::to_string(k) + ".json");
  };
  for (int k = 0; k < 6; ++k) add_night(k, 0, k == 3 || k == 5 ? std::optional<int64_t>(0) : std::nullopt);
  for (int k = 6; k < 12; ++k) add_night(k, 0.3, k == 8 || k == 10 ? std::optional<int64_t>(30) : std::nullopt);
  const auto trend = trends(store, {"baseline"}, Metric::train_samples_per_s, TrendOptions{});
  const TrendPoint* step = nullptr;
  for (const auto& p : trend.at(0).points)
    if (p.change_point) step = &p;
  REQUIRE(step != nullptr);
  CHECK(step->run.git_commit == "c6");
  std::vector<const Suspect*> ops;
  for (const auto& x : step->what_changed.suspects)
    if (x.kind == SuspectKind::operator_time) ops.push_back(&x);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0]->text() == "operator aten::addmm (matmul): 40.0 -> 70.0 ms a profiled step (+30.0 ms, 100 % of the step's change)");
  CHECK(step->what_changed.profiles.find("profiles of n5.json and n8.json") == 0);
  const std::string md = trend_markdown("baseline", Metric::train_samples_per_s, trend.at(0).points);
  CHECK(md.find("\n  - operators that grew, profiles of n5.json and n8.json") != std::string::npos);
  CHECK(md.find("\n    - operator aten::addmm (matmul): 40.0 -> 70.0 ms") != std::string::npos);
}

TEST_CASE("one rule for the same configuration: the same data at two paths is one series and comparable, "
          "other data at one path two series and refused") {
  // run_differences.h's key table, read by compare (check_configs) and
  // history (config_hash): fails where either keeps its own rule (history
  // hashing the path, compare the device index).
  const auto at = [](int night, const std::string& path, const std::string& hash, const std::string& device) {
    json j = fake_report_json(run_at(night, {100, 101}));
    j["config"]["data"] = path;
    j["config"]["device"] = device;
    j["config"]["workload"]["data_source"] = path;
    j["config"]["workload"]["data_hash"] = hash;
    return j;
  };
  const json first = at(0, "/data/imdb", "aaaa", "cuda:0");
  const json moved = at(1, "/mnt/copy/imdb", "aaaa", "cuda:1");
  const json other = at(2, "/data/imdb", "bbbb", "cuda:0");
  CHECK(check_configs(first["config"], moved["config"]).comparable());
  const ConfigCheck refused = check_configs(first["config"], other["config"]);
  REQUIRE(refused.differences.size() == 1);
  CHECK(refused.differences[0].key == "workload.data_hash");

  TempDir dir("ftb_history");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  for (const json* j : {&first, &moved, &other}) store.add(*j, "r.json");
  const RunKey key = run_key(report_from_json(first, "r0.json"), "r0.json");
  CHECK(key.config_hash == run_key(report_from_json(moved, "r1.json"), "r1.json").config_hash);
  CHECK(key.config_hash != run_key(report_from_json(other, "r2.json"), "r2.json").config_hash);
  CHECK(store.window(key, "baseline", 20, std::vector<std::string>{}).size() == 2);
}

TEST_CASE("history migration: a version 4 file's series are hashed again under the key table it opens with") {
  // Two runs with the same data (data_hash) read through vocabularies at two
  // paths: one series under version 5's table; a version 4 file kept the
  // hashes of its day (stood for here by a stale text) until opened.
  TempDir dir("ftb_history_v5");
  const std::string db = dir.path() + "/h.db";
  const auto at = [](int night, const std::string& vocab) {
    json j = fake_report_json(run_at(night, {100, 101}));
    j["config"]["workload"]["data_hash"] = "aaaa";
    j["config"]["workload"]["vocab_source"] = vocab;
    j["config"]["workload"]["vocab"] = {{"method", "file"}, {"path", vocab}, {"size", 30522}};
    return j;
  };
  const json a = at(0, "/models/a/vocab.txt"), b = at(1, "/scratch/vocab.txt");
  { HistoryStore store(db, HistoryStore::Open::create); store.add(a, "a.json"); store.add(b, "b.json"); }
  rewrite_history_file(db, "UPDATE runs SET config_hash = 'stale-' || id; DROP TABLE duet_rows; DROP TABLE duets; "
                       "UPDATE schema_version SET version = 4");
  HistoryStore store(db, HistoryStore::Open::existing);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  const RunKey key = run_key(report_from_json(a, "a.json"), "a.json");
  CHECK(key.config_hash == run_key(report_from_json(b, "b.json"), "b.json").config_hash);
  CHECK(store.window(key, "baseline", 20, std::vector<std::string>{}).size() == 2);
}

TEST_CASE("one rule for the same model: the same weights in two folders are one series and comparable, "
          "other weights in one folder two series and refused") {
  const auto at = [](int night, const std::string& dir, const std::string& weights) {
    json j = fake_report_json(run_at(night, {100, 101}));
    j["config"]["model_dir"] = dir;
    j["config"]["workload"]["model_dir"] = dir;
    j["config"]["workload"]["init"] = "pretrained";
    j["config"]["workload"]["weights_hash"] = weights;
    return j;
  };
  const json first = at(0, "/models/distilbert", "1111");
  const json moved = at(1, "/scratch/copy", "1111");
  const json retrained = at(2, "/models/distilbert", "2222");
  CHECK(check_configs(first["config"], moved["config"]).comparable());
  const ConfigCheck refused = check_configs(first["config"], retrained["config"]);
  REQUIRE(refused.differences.size() == 1);
  CHECK(refused.differences[0].key == "workload.weights_hash");

  TempDir dir("ftb_history_weights");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  for (const json* j : {&first, &moved, &retrained}) store.add(*j, "r.json");
  const RunKey key = run_key(report_from_json(first, "r0.json"), "r0.json");
  CHECK(key.config_hash == run_key(report_from_json(moved, "r1.json"), "r1.json").config_hash);
  CHECK(key.config_hash != run_key(report_from_json(retrained, "r2.json"), "r2.json").config_hash);
  CHECK(store.window(key, "baseline", 20, std::vector<std::string>{}).size() == 2);
}

namespace {

// A judged duet.json's rows as `ftbench duet` writes them (bench/duet_report.cpp).
json duet_record(double baseline_change, const std::string& verdict, const std::string& a_hash) {
  json sides = {{"a", {{"executable", "ref/ftbench"}, {"args", json::array()}}},
                {"b", {{"executable", "build/ftbench"}, {"args", json::array()}}}};
  if (!a_hash.empty()) sides["a"]["executable_hash"] = a_hash;
  return {{"duet_version", 1},
          {"mode", "duet"},
          {"sides", sides},
          {"rows", {{{"scenario", "baseline"},
                     {"verdict", verdict},
                     {"pairs", 5},
                     {"sd_log_ratio", 0.012},
                     {"change", {{"estimate", baseline_change}, {"low", baseline_change - 0.01},
                                 {"high", baseline_change + 0.01}, {"level", 0.95}}}},
                    {{"scenario", "amp"}, {"verdict", "not judged"}, {"pairs", 1}}}}};
}

}  // namespace

TEST_CASE("history duets: each row's change against the reference named by content, beside the runs, the same "
          "job twice adds nothing") {
  TempDir dir("ftb_history_duets");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  FakeRun ref = run_at(0, {100}), tonight = run_at(1, {95});
  tonight.throughput["amp"] = {150};
  const Report a = fake_report(ref), b = fake_report(tonight);
  const json job = duet_record(-0.05, "regressed", "0123456789abcdef");
  const auto first = store.add_duet(job, a, b, "night-1/duet.json");
  CHECK(first.added);
  CHECK(first.rows == 2);
  CHECK(first.duet.reference == "ftbench 0123456789ab");
  CHECK(first.duet.reference_commit == "c0");
  CHECK(first.duet.git_commit == "c1");
  CHECK(first.duet.time == night_time(1));
  CHECK(first.duet.machine == "sim | Test CPU");
  CHECK_FALSE(store.add_duet(job, a, b, "again.json").added);  // idempotent by content
  CHECK(store.duet_count() == 1);
  CHECK(store.run_count() == 0);  // the ratio series stands beside the runs, it adds none

  // Another night, a reference without a recorded hash: named by its commit
  // and tree; side A on another configuration says so.
  ref.lr = 0.002;
  Report a2 = fake_report(ref);
  a2.environment = [&] { json e = a2.environment.facts(); e["git_tree"] = "dirty"; return Environment(e); }();
  const Report b2 = fake_report(run_at(2, {100}));
  const auto second = store.add_duet(duet_record(0.001, "same", ""), a2, b2, "night-2/duet.json");
  CHECK(second.duet.reference.rfind("commit c0, dirty, config ", 0) == 0);
  // A variable set on side A alone is part of what ran there: named too.
  json with_env = duet_record(0.0, "same", "0123456789abcdef");
  with_env["sides"]["a"]["env"] = {"OMP_PROC_BIND=close"};
  CHECK(duet_run(with_env, a, b, "n").reference == "ftbench 0123456789ab, OMP_PROC_BIND=close");

  const auto series = store.duet_series("baseline");
  REQUIRE(series.size() == 2);
  CHECK(series[0].verdict == "regressed");
  CHECK(series[0].change == doctest::Approx(-0.05));
  CHECK(series[0].low == doctest::Approx(-0.06));
  CHECK(series[0].level == doctest::Approx(0.95));
  CHECK(series[1].verdict == "same");
  const auto amp = store.duet_series("amp");
  REQUIRE(amp.size() == 2);
  CHECK(std::isnan(amp[0].change));  // not judged: no change kept
  CHECK(store.duet_scenarios() == std::vector<std::string>{"amp", "baseline"});

  const std::string md = duet_trend_markdown("baseline", series);
  CHECK(md.find("**regressed**") != std::string::npos);
  CHECK(md.find("ftbench 0123456789ab") != std::string::npos);
  CHECK(md.find("-5.0 %") != std::string::npos);
  CHECK(md.find("-6.0 % to -4.0 % (95 %)") != std::string::npos);

  CHECK(error_of([&] { store.add_duet(json{{"duet_version", 1}, {"rows", json::array()}}, a, b, "empty.json"); })
            .find("empty.json") != std::string::npos);
  // A failed job, a scenario twice: refused, naming the file and why; nothing added.
  json failed = job;
  failed["failure"] = "side b exited with 1";
  failed["rows"][0]["change"]["estimate"] = -0.2;
  CHECK(error_of([&] { store.add_duet(failed, a, b, "failed.json"); }).find("failed job") != std::string::npos);
  json twice = duet_record(0.0, "same", "ffff");
  twice["rows"][1]["scenario"] = "baseline";
  CHECK(error_of([&] { store.add_duet(twice, a, b, "twice.json"); }).find("appears twice") != std::string::npos);
  CHECK(store.duet_count() == 2);
  // The jobs before a given one: its machine and configuration, earlier, itself left out.
  const DuetRun third = duet_run(duet_record(0.002, "same", "0123456789abcdef"), a, fake_report(run_at(3, {100})), "n3");
  CHECK(store.duet_series("baseline", &third).size() == 2);
  CHECK(store.duet_series("baseline", &second.duet).size() == 1);
  CHECK(store.duet_series("baseline", &first.duet).empty());
}

TEST_CASE("history duets: a version 6 file (the change column named log_ratio) opens as version 7, its rows kept") {
  TempDir dir("ftb_history_duets_v6");
  const std::string db = dir.path() + "/h.db";
  {
    HistoryStore store(db, HistoryStore::Open::create);
    store.add_duet(duet_record(-0.05, "regressed", "0123456789abcdef"), fake_report(run_at(0, {100})),
                   fake_report(run_at(1, {95})), "night-1/duet.json");
  }
  rewrite_history_file(db, "ALTER TABLE duet_rows RENAME COLUMN change_ratio TO log_ratio; "
                       "UPDATE schema_version SET version = 6");
  HistoryStore store(db, HistoryStore::Open::existing);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  const auto series = store.duet_series("baseline");
  REQUIRE(series.size() == 1);
  CHECK(series[0].change == doctest::Approx(-0.05));
}
