// Registry-driven: every registered scenario runs a few steps on a tiny
// config and ends ok, or skipped with a reason. A new scenario needs no edit.
#include <doctest/doctest.h>

#include "core/base/portable_random.h"

#include <algorithm>
#include <signal.h>

#include "core/model/attention.h"
#include "core/train/run_config.h"
#include "core/train/train_loop.h"
#include "core/train/workload.h"
#include "scenarios/largest_batch.h"
#include "scenarios/registry.h"
#include "registered_rows.h"
#include "scenarios/runner.h"
#include "scenarios/sweep.h"
#include "reports/analysis/intervals.h"
#include "reports/record/report.h"
#include "reports/record/report_upgrade.h"
#include "reports/analysis/report_json.h"
#include "reports/views/ladder.h"
#include "reports/views/table.h"
#include "core/base/errors.h"
#include "core/base/interrupt.h"
#include "tests/tiny_config.h"

TEST_CASE("scenarios: every registered scenario runs or says why it cannot, on either model") {
  for (const std::string model_type : {"distilbert", "bert"}) {
    CAPTURE(model_type);
    auto config = tiny_config();
    config.model_type = ftb::parse_choice<ftb::ModelType>(model_type, "model_type");
    const auto workload = ftb::build_workload(config);
    CHECK(ftb::to_string(workload.model_config.type) == model_type);
    CHECK(workload.make_model()->body_prefix() == model_type + ".");
    for (const auto& info : ftb::scenario_registry()) {
      CAPTURE(info.name);
      auto r = ftb::run_scenario(info, workload, config, {});
      CHECK(r.scenario == info.name);
      if (r.status == ftb::Status::skipped) {
        CHECK(!r.reason.empty());
        continue;
      }
      REQUIRE_MESSAGE(r.status == ftb::Status::ok, r.reason);
      CHECK(r.steps.size() == 4);
      CHECK(r.epochs.size() == 1);
      CHECK(r.wall_time_s > 0);
      CHECK(r.train_samples_per_s > 0);
      CHECK(r.test_acc >= 0);
      CHECK(r.test_acc <= 1);
      CHECK(r.repeats.size() == 1);
      // Every row names the attention kernel it ran (the peer: not measured, said so).
      REQUIRE(r.extra.contains("attention_backend"));
      const std::string backend = r.extra["attention_backend"].get<std::string>();
      CHECK((backend == "flash_attention" || backend == "efficient_attention" || backend == "cudnn_attention" ||
             backend == "math" || backend.rfind("not measured", 0) == 0));
      CHECK((r.technique_settings == info.technique_settings));
    }
  }
}

TEST_CASE("attention: the SDPA kernel is named, and cuDNN's switch is restored after a graph row") {
  const std::string cpu = ftb::sdpa_backend(torch::Device(torch::kCPU), torch::kFloat, 2, 2, 16, 8, 0.1);
  CHECK((cpu == "flash_attention" || cpu == "math"));  // what a CPU has
  const bool before = at::globalContext().userEnabledCuDNNSDP();
  {
    const ftb::CudnnAttentionOff off;
    CHECK_FALSE(at::globalContext().userEnabledCuDNNSDP());
  }
  CHECK(at::globalContext().userEnabledCuDNNSDP() == before);
}

TEST_CASE("scenarios: names resolve, unknown names are rejected") {
  CHECK(ftb::find_scenario("baseline") != nullptr);
  CHECK(ftb::find_scenario("nope") == nullptr);
  CHECK(ftb::select_scenarios({}).size() == ftb::scenario_registry().size());
  CHECK_THROWS(ftb::select_scenarios({"baseline", "nope"}));
}

namespace {
ftb::ScenarioInfo registry_test_row_a() {
  ftb::ScenarioInfo s;
  s.name = "a";
  return s;
}
ftb::ScenarioInfo registry_test_row_b() {
  ftb::ScenarioInfo s;
  s.name = "b";
  s.aliases = {"a2"};
  return s;
}
ftb::ScenarioInfo registry_test_row_b_as_a() {
  ftb::ScenarioInfo s = registry_test_row_b();
  s.aliases = {"a"};
  return s;
}
}  // namespace

TEST_CASE("scenarios: every row its sources register is linked in, in rank order (no list kept by hand)") {
  // kRegisteredInSource: the FTB_REGISTER_SCENARIO lines of ftb_scenarios'
  // files, read by CMake (tests/CMakeLists.txt). A row the linker dropped,
  // or a registration outside that line form, is missing here.
  std::vector<std::pair<int, std::string>> want = kRegisteredInSource;
  std::sort(want.begin(), want.end());
  const auto linked = ftb::scenario_registrations();
  REQUIRE(linked.size() == want.size());
  CHECK(ftb::scenario_registry().size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(linked[i].rank == want[i].first);
    const std::string& file = linked[i].file;  // __FILE__: absolute, or as the compiler was given it
    const bool same_file = file.size() >= want[i].second.size() &&
                           file.compare(file.size() - want[i].second.size(), std::string::npos, want[i].second) == 0;
    CHECK_MESSAGE(same_file, file << " registers rank " << linked[i].rank << "; the sources say " << want[i].second);
  }
}

TEST_CASE("scenarios: the registry sorts by rank, not registration order, and refuses a shared rank or name") {
  const auto table = ftb::table_by_rank({{20, registry_test_row_b, "b.cpp"}, {10, registry_test_row_a, "a.cpp"}});
  REQUIRE(table.size() == 2);
  CHECK(table[0].name == "a");
  CHECK(table[1].name == "b");
  try {
    ftb::table_by_rank({{10, registry_test_row_a, "a.cpp"}, {10, registry_test_row_b, "b.cpp"}});
    FAIL("a shared rank was accepted");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()) == "a.cpp and b.cpp register the same scenario rank 10");
  }
  try {
    ftb::table_by_rank({{10, registry_test_row_a, "a.cpp"}, {20, registry_test_row_b_as_a, "b.cpp"}});
    FAIL("a shared name was accepted");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()) == "a.cpp and b.cpp both register the scenario name \"a\"");
  }
}

TEST_CASE("ladder: the rungs from the registry's rows, in its order") {
  // Rows ok with the stacks their ScenarioInfo gives, in registry order;
  // fastest as on CUDA (bf16, fused_adam, bucketing). fused_adam and
  // amp_bf16 both add one technique: the rung is the row ranked first.
  ftb::Report report;
  for (const auto& s : ftb::scenario_registry()) {
    ftb::ScenarioResult r;
    r.scenario = s.name;
    r.status = ftb::Status::ok;
    r.stack = s.name == "fastest" ? std::vector<std::string>{"bf16", "fused_adam", "bucketing"} : s.stack;
    r.wall_time_s = 10;
    report.results.push_back(r);
  }
  std::vector<std::string> rungs;
  for (const auto& rung : ftb::ladder(report)) rungs.push_back(rung.row->scenario);
  CHECK(rungs == std::vector<std::string>{"baseline", "fused_adam", "fastest"});
}

TEST_CASE("scenarios: each row's technique settings and stack travel in its result, and v3's frozen table is today's") {
  // The upgrade fills reports up to v3 from a frozen table of what those
  // builds' registry said; for the rows they had it must agree with today's
  // (change the table only if a row's technique changed before v4).
  const nlohmann::json legacy = ftb::legacy_technique_table();
  for (const auto& [name, t] : legacy.items()) {
    CAPTURE(name);
    const ftb::ScenarioInfo* info = ftb::find_scenario(name);
    REQUIRE(info != nullptr);
    nlohmann::json settings = nlohmann::json::array();
    for (ftb::RowSetting s : info->technique_settings) settings.push_back(ftb::to_string(s));
    CHECK(t.at("technique_settings") == settings);
    CHECK(t.at("stack") == nlohmann::json(info->stack));
  }
  const ftb::RunConfig c = tiny_config();
  const ftb::ScenarioResult header = ftb::row_header(*ftb::find_scenario("amp_bf16"), c);
  CHECK((header.technique_settings == std::vector<ftb::RowSetting>{ftb::RowSetting::precision}));
  CHECK(header.stack == std::vector<std::string>{"bf16"});
  const ftb::ScenarioResult back = ftb::result_from_json(ftb::to_json(header));
  CHECK((back.technique_settings == header.technique_settings));
  CHECK(back.stack == header.stack);
}

TEST_CASE("baseline: the same seed gives the same training run") {
  auto config = tiny_config();
  config.max_steps = 3;
  const auto workload = ftb::build_workload(config);
  const auto* info = ftb::find_scenario("baseline");
  auto a = ftb::run_scenario(*info, workload, config, {});
  auto b = ftb::run_scenario(*info, workload, config, {});
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) CHECK(a.steps[i].loss == b.steps[i].loss);
}

// Issue 47: seed_per_repeat retrains repeat i with the training seed + i on
// the same split: repeat 1 of seed 123 is the run of train_seed 124, repeat
// 0 the run without the switch; the data split stays seed's.
TEST_CASE("seed_per_repeat: repeat i is the training run of train_seed = seed + i, on the same test split") {
  auto config = tiny_config();
  config.max_steps = 3;
  config.eval_max_batches = 0;  // the whole test split: hits kept
  const auto workload = ftb::build_workload(config);
  const auto* info = ftb::find_scenario("baseline");
  auto seeded = config;
  seeded.seed_per_repeat = true;
  seeded.repeats = 2;
  const auto both = ftb::run_scenario(*info, workload, seeded, {});
  REQUIRE(both.repeats.size() == 2);
  const auto first = ftb::run_scenario(*info, workload, config, {});  // seed 123, once
  auto second_config = config;
  second_config.train_seed = config.seed + 1;
  const auto second_workload = ftb::build_workload(second_config);
  CHECK(second_workload.test.content_hash(0) == workload.test.content_hash(0));  // the same split
  const auto second = ftb::run_scenario(*info, second_workload, second_config, {});
  REQUIRE(both.steps.size() == second.steps.size());  // the last repeat's steps
  for (std::size_t i = 0; i < both.steps.size(); ++i) CHECK(both.steps[i].loss == second.steps[i].loss);
  CHECK(both.repeats[0].test_correct == first.repeats[0].test_correct);
  CHECK(both.repeats[1].test_correct == second.repeats[0].test_correct);
  CHECK(first.steps.front().loss != second.steps.front().loss);  // another seed, another run
  CHECK(ftb::training_seed(second_config) == 124);
  CHECK(ftb::training_seed(config) == 123);
}

TEST_CASE("sweep: rows in the order asked, one callback per row, skipped rows kept, threads recorded") {
  auto config = tiny_config();
  config.scenarios = {"amp", "baseline"};  // amp is skipped on the CPU
  config.threads = 1;
  ftb::Sweep sweep(config, ftb::DistEnv{});
  CHECK(sweep.reports());
  CHECK(sweep.threads() == 1);
  const auto workload = ftb::build_workload(sweep.config());
  std::vector<size_t> seen;
  nlohmann::json measured;
  const auto results = sweep.run(workload, "", {}, [&](const auto& rows, const nlohmann::json& environment) {
    seen.push_back(rows.size());
    measured = environment;
  });
  REQUIRE(results.size() == 2);
  CHECK(results[0].scenario == "amp");
  CHECK(results[0].status == ftb::Status::skipped);
  CHECK(results[1].scenario == "baseline");
  CHECK(results[1].status == ftb::Status::ok);
  CHECK(results[1].threads == 1);
  CHECK(results[1].optimizer == "adam/loop");  // PyTorch's pick on the CPU
  CHECK(results[1].mfu > 0);                   // measured against the fp32 peak
  CHECK(seen == std::vector<size_t>{1, 2, 2});  // after each row, then with the peak measured after them
  CHECK(measured.at("peak_matmul_tflops").at("by_precision").at("fp32").get<double>() > 0);
  CHECK(measured.at("repeats").at("shuffled") == false);  // one repeat: the order asked
  // The loader's prefetch as resolved for this process, and why.
  CHECK(measured.at("loader").at("prefetch").get<int>() >= 0);
  CHECK_FALSE(measured.at("loader").at("reason").get<std::string>().empty());
  CHECK(measured.at("repeats").at("orders") == nlohmann::json::array({{"amp", "baseline"}}));
  // one untimed warm-up pass for the one precision that runs (amp is skipped)
  const auto& passes = measured.at("warmup").at("passes");
  REQUIRE(passes.size() == 1);
  CHECK(passes[0].at("precision") == "fp32");
  CHECK(passes[0].at("seconds").get<double>() > 0);
  CHECK(sweep.exit_code() == 0);
}

namespace {
// Raises `sig` in this process after step `at` of row `row`; records every step.
struct RaiseAt : ftb::LoopCallback {
  std::string row;
  int64_t at = 0;
  int sig = SIGINT;
  std::vector<std::string> steps;
  void on_batch_end(const ftb::LoopState& s, const ftb::StepRecord&) override {
    steps.push_back(s.scenario + ":" + std::to_string(s.step));
    if (s.scenario == row && s.step == at) raise(sig);
  }
};
}  // namespace

TEST_CASE("sweep: SIGINT mid-row ends that row between steps, keeps the finished rows, leaves the rest out") {
  auto config = tiny_config();
  config.scenarios = {"baseline", "amp_bf16", "fused_adam"};
  config.threads = 1;
  ftb::InterruptScope interrupts;
  ftb::Sweep sweep(config, ftb::DistEnv{});
  const auto workload = ftb::build_workload(sweep.config());
  RaiseAt cb;
  cb.row = "amp_bf16";
  cb.at = 2;
  std::vector<std::vector<ftb::ScenarioResult>> written;
  const auto results = sweep.run(workload, "", {&cb}, [&](const auto& rows, const nlohmann::json&) {
    written.push_back(rows);
  });
  REQUIRE(results.size() == 2);
  CHECK(results[0].scenario == "baseline");
  CHECK(results[0].status == ftb::Status::ok);
  CHECK(results[1].scenario == "amp_bf16");
  CHECK(results[1].status == ftb::Status::failed);
  CHECK(results[1].reason == "interrupted");
  CHECK(cb.steps.back() == "amp_bf16:2");  // no step after the signal
  REQUIRE(!written.empty());
  CHECK(written.back().size() == 2);  // the report was written with both rows
  CHECK(sweep.exit_code() == 130);
}

TEST_CASE("sweep: repeats run in rounds, each round in its recorded random order, and the report pairs them") {
  auto config = tiny_config();
  config.scenarios = {"baseline", "amp_bf16"};
  config.repeats = 2;
  config.threads = 1;
  ftb::Sweep sweep(config, ftb::DistEnv{});
  const auto workload = ftb::build_workload(sweep.config());
  // After every repeat of a row: how many repeats each row has so far.
  std::vector<std::vector<size_t>> seen;
  nlohmann::json measured;
  const auto results = sweep.run(workload, "", {}, [&](const auto& rows, const nlohmann::json& environment) {
    std::vector<size_t> counts;
    for (const auto& r : rows) counts.push_back(r.repeats.size());
    seen.push_back(counts);
    measured = environment;
  });
  // Round 0: one row, then both with one repeat; round 1: one row ahead, then
  // both with two; then the report again with the peak measured after the rows.
  REQUIRE(seen.size() == 5);
  CHECK(seen[0] == std::vector<size_t>{1});
  CHECK(seen[1] == std::vector<size_t>{1, 1});
  CHECK(seen[2][0] + seen[2][1] == 3);
  CHECK(seen[3] == std::vector<size_t>{2, 2});
  CHECK(seen[4] == std::vector<size_t>{2, 2});
  REQUIRE(results.size() == 2);
  CHECK(results[1].repeats.size() == 2);
  const auto& repeats = measured.at("repeats");
  CHECK(repeats.at("order") == "rounds");
  CHECK(repeats.at("shuffled") == true);
  // The recorded orders are what the recorded seed gives: a reader can replay them.
  REQUIRE(repeats.at("orders").size() == 2);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::string> want = {"baseline", "amp_bf16"};
    std::mt19937_64 rng(repeats.at("seed").get<uint64_t>() + static_cast<uint64_t>(round));
    ftb::portable_shuffle(want, rng);
    CHECK(repeats.at("orders")[round].get<std::vector<std::string>>() == want);
  }
  // The matmul peak again after the rows, with its change.
  CHECK(measured.at("peak_matmul_tflops_after").at("by_precision").at("fp32").get<double>() > 0);
  CHECK(measured.at("peak_matmul_tflops_after").contains("fp32_change"));
  // A CPU row's peak memory is the row's own (Linux resets the high-water mark).
  CHECK(results[0].peak_bytes_source == "rss_peak_since_row_start");
  ftb::Report report;
  report.environment = measured;
  report.results = results;
  const auto s = ftb::speedups_vs(report, results[1], "baseline");
  REQUIRE(s);
  CHECK(s->paired);
  // an older report (rows one after the other) is not paired
  report.environment.facts().erase("repeats");
  CHECK_FALSE(ftb::speedups_vs(report, results[1], "baseline")->paired);
}

TEST_CASE("sweep: peak=datasheet on a device with no datasheet reports no MFU, and says why") {
  auto config = tiny_config();
  config.scenarios = {"baseline"};
  config.threads = 1;
  config.peak = ftb::parse_peak("datasheet");
  ftb::Sweep sweep(config, ftb::DistEnv{});
  const auto workload = ftb::build_workload(sweep.config());
  nlohmann::json measured;
  const auto results = sweep.run(workload, "", {}, [&](const auto&, const nlohmann::json& e) { measured = e; });
  REQUIRE(results[0].status == ftb::Status::ok);
  CHECK(results[0].mfu == 0);
  CHECK(results[0].mfu_peak_tflops == 0);
  CHECK(measured.at("mfu_peak").at("source") == "datasheet");
  CHECK(measured.at("mfu_peak").at("note").get<std::string>().find("no datasheet peak") != std::string::npos);
  // the measured peak is still recorded
  CHECK(measured.at("peak_matmul_tflops").at("by_precision").at("fp32").get<double>() > 0);
}

TEST_CASE("sweep: peak=<TFLOP/s> pins MFU's denominator") {
  auto config = tiny_config();
  config.scenarios = {"baseline"};
  config.threads = 1;
  config.peak = ftb::parse_peak("0.5");
  ftb::Sweep sweep(config, ftb::DistEnv{});
  const auto workload = ftb::build_workload(sweep.config());
  const auto results = sweep.run(workload, "", {}, [](const auto&, const nlohmann::json&) {});
  REQUIRE(results[0].status == ftb::Status::ok);
  CHECK(results[0].mfu_peak_tflops == 0.5);
  CHECK(results[0].mfu == doctest::Approx(results[0].model_tflops_per_s / 0.5));
}

TEST_CASE("sweep: an unknown row fails before any work, naming --scenarios") {
  auto config = tiny_config();
  config.scenarios = {"baseline", "nope"};
  try {
    ftb::Sweep sweep(config, ftb::DistEnv{});
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("--scenarios: ", 0) == 0);
  }
}

TEST_CASE("runner: the aggregate is computed from the repeats") {
  auto config = tiny_config();
  config.repeats = 3;
  config.max_steps = 2;
  const auto workload = ftb::build_workload(config);
  auto r = ftb::run_scenario(*ftb::find_scenario("baseline"), workload, config, {});
  REQUIRE(r.repeats.size() == 3);
  std::vector<double> walls;
  for (const auto& s : r.repeats) {
    walls.push_back(s.wall_time_s);
    CHECK(s.step_ms_median > 0);
    CHECK(s.train_samples == 16);
  }
  CHECK(r.wall_time_s == doctest::Approx(ftb::median(walls)));
  // the aggregate survives the JSON round trip that report and rank protocol share
  auto back = ftb::result_from_json(ftb::to_json(r));
  CHECK(back.repeats.size() == 3);
  CHECK(back.repeats[2].step_ms_median == r.repeats[2].step_ms_median);
  CHECK(back.optimizer == r.optimizer);
  auto with_steps = ftb::result_from_json(ftb::to_json(r, /*with_steps=*/true));
  CHECK(with_steps.steps.size() == r.steps.size());
}

TEST_CASE("report: every ok row carries medians with intervals and both speed-ups") {
  auto config = tiny_config();
  config.repeats = 3;
  config.max_steps = 4;
  const auto workload = ftb::build_workload(config);
  ftb::Report report;
  for (const char* name : {"baseline", "amp_bf16"})
    report.results.push_back(ftb::run_scenario(*ftb::find_scenario(name), workload, config, {}));
  const auto j = ftb::report_to_json(report);
  for (const auto& r : j.at("results")) {
    CAPTURE(r.at("scenario").get<std::string>());
    const auto& wall = r.at("intervals").at("wall_time_s");
    CHECK(wall.at("n") == 3);
    CHECK(wall.at("low").get<double>() <= wall.at("median").get<double>());
    CHECK(wall.at("median").get<double>() <= wall.at("high").get<double>());
    CHECK(wall.at("min").get<double>() <= wall.at("low").get<double>());
    // 3 repeats: [min, max], which covers the median 75 % of the time, and says so.
    CHECK(wall.at("coverage").get<double>() == doctest::Approx(0.75));
    CHECK(wall.at("method") == "order statistics");
    CHECK_FALSE(wall.contains("ci95_low"));
    const auto& step = r.at("intervals").at("step_ms");
    CHECK(step.at("p50").get<double>() <= step.at("p90").get<double>());
    CHECK(step.at("p90").get<double>() <= step.at("p99").get<double>());
    const auto& e2e = r.at("speedup").at("end_to_end");
    CHECK(e2e.at("low").get<double>() <= e2e.at("median").get<double>());
    CHECK(r.at("speedup").at("steady_state").at("median").get<double>() > 0);
  }
  // baseline against itself: exactly 1 and an interval around it
  const auto& base = j.at("results")[0].at("speedup").at("end_to_end");
  CHECK(base.at("median").get<double>() == doctest::Approx(1.0));
  CHECK(base.at("low").get<double>() <= 1.0);
  CHECK(base.at("high").get<double>() >= 1.0);
  // the table shows the interval
  CHECK(ftb::speedup_table_markdown(report).find("1.00x [") != std::string::npos);
}

TEST_CASE("runner: a row that runs out of memory fails naming the settings to change, not the allocator's trace") {
  auto config = tiny_config();
  const auto workload = ftb::build_workload(config);
  config.batch_size = 96;  // the settings the message names (the repeat below never trains)
  config.padding = ftb::Padding::max_length;
  const ftb::RepeatFn out_of_memory = [](const ftb::Workload&, const ftb::RunConfig&,
                                         const ftb::ScenarioContext&) -> ftb::ScenarioResult {
    TORCH_CHECK_WITH(OutOfMemoryError, false,
                     "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.8 GiB "
                     "of which 1.2 GiB is free.\nException raised from malloc at CUDACachingAllocator.cpp:1 ...");
  };
  auto r = ftb::run_scenario(*ftb::find_scenario("baseline"), workload, config, {}, out_of_memory);
  CHECK(r.status == ftb::Status::failed);
  CHECK(r.reason == "does not fit in memory at batch_size=96 and max_length=" + std::to_string(config.max_length) +
                        " per rank (padding=max_length): lower batch_size or max_length, or set padding=longest"
                        " (CUDA out of memory. Tried to allocate 2.00 GiB)");
}

TEST_CASE("largest_batch: doubling then bisection finds the largest batch that fits") {
  std::vector<std::pair<int64_t, bool>> tried;
  CHECK(ftb::largest_fitting_batch(12, 4096, [](int64_t b) { return b <= 100; }, &tried) == 100);
  const std::vector<std::pair<int64_t, bool>> want = {{12, true},   {24, true},   {48, true},  {96, true},
                                                      {192, false}, {144, false}, {120, false}, {108, false},
                                                      {102, false}, {99, true},   {100, true}, {101, false}};
  CHECK(tried == want);
  CHECK(ftb::largest_fitting_batch(12, 50, [](int64_t) { return true; }) == 50);   // the cap (training set size)
  CHECK(ftb::largest_fitting_batch(12, 4096, [](int64_t b) { return b < 12; }) == 0);  // not even the start
  CHECK(ftb::largest_fitting_batch(12, 4096, [](int64_t b) { return b <= 12; }) == 12);
  CHECK(ftb::sqrt_scaled_lr(5e-5, 12, 48) == doctest::Approx(1e-4));
}

TEST_CASE("largest_batch: one search per configuration and device, training at 0.9 of what fitted") {
  CHECK(ftb::training_batch(1000, 0.9, 12) == 900);
  CHECK(ftb::training_batch(13, 0.9, 12) == 12);   // never below the configured batch
  CHECK(ftb::training_batch(12, 0.9, 12) == 12);
  CHECK(ftb::training_batch(10, 0.9, 12) == 10);   // nor above what fitted
  int searches = 0;
  auto search = [&] {
    ++searches;
    ftb::BatchSearch s;
    s.found = 256;
    s.seconds = 60;
    return s;
  };
  bool reused = true;
  const std::string key = "test-device model-a " + std::to_string(reinterpret_cast<std::uintptr_t>(&searches));
  CHECK(ftb::search_once(key, search, &reused).found == 256);
  CHECK_FALSE(reused);
  CHECK(ftb::search_once(key, search, &reused).seconds == 60);  // the second repeat: no new search
  CHECK(reused);
  CHECK(searches == 1);
  ftb::search_once(key + " other device", search, &reused);
  CHECK_FALSE(reused);
  CHECK(searches == 2);
}

TEST_CASE("largest_batch: skipped on a CPU, saying why") {
  auto config = tiny_config();
  config.device = "cpu";
  const auto r = ftb::row_header(*ftb::find_scenario("largest_batch"), config);
  CHECK(r.status == ftb::Status::skipped);
  CHECK(r.reason.find("needs a CUDA device") == 0);
}

TEST_CASE("steady_throughput: post-warm-up samples over post-warm-up step and loader time, times the ranks") {
  std::vector<ftb::StepRecord> steps;
  for (int i = 1; i <= 5; ++i) {
    ftb::StepRecord s;
    s.step = i;
    s.samples = 10;
    s.step_ms = i <= 2 ? 1000 : 90;  // two slow warm-up steps, left out
    s.wait_ms = i <= 2 ? 0 : 10;     // a loader that makes each step wait 10 ms counts
    steps.push_back(s);
  }
  CHECK(ftb::steady_throughput(steps, 2) == doctest::Approx(30.0 * 1000 / 300));
  CHECK(ftb::steady_throughput(steps, 2, 2.0) == doctest::Approx(200));  // two ranks
  CHECK(ftb::steady_throughput(steps, 5) == 0);                         // nothing after warm-up
}

TEST_CASE("peer rows: adam=fused, which the config now accepts everywhere, leaves them out saying why") {
  auto c = tiny_config();
  c.adam = ftb::AdamKernel::fused;
  for (const char* name : {"peer", "peer_amp", "peer_amp_compiled"}) {
    CAPTURE(name);
    const ftb::ScenarioInfo* info = ftb::find_scenario(name);
    REQUIRE(info != nullptr);
    REQUIRE(info->unavailable);
    const std::string why = info->unavailable(c);
    // The fp16 variants on a CPU name the device first; every variant is left out.
    CHECK(!why.empty());
  }
  const std::string why = ftb::find_scenario("peer")->unavailable(c);
  CHECK(why.find("adam=fused") != std::string::npos);
}
