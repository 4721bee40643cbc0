// Reports: the JSON record (round trip, contract keys, errors naming the
// file), atomic writes, the speed-up table, the Vega-Lite specs and the
// environment capture.
#include "core/measure/environment.h"
#include "reports/views/run_outputs.h"
#include "core/base/errors.h"
#include "reports/record/report.h"
#include "reports/analysis/accuracy_verdict.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/report_json.h"
#include "reports/views/console_table.h"
#include "reports/views/table.h"
#include "reports/views/vega.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <dirent.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace {

// A fresh directory per test, removed at the end. POSIX, not std::filesystem:
// the pip LibTorch's exported copy of fs::remove_all crashes (see report.cpp).
struct TempDir {
  std::string path;
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ftb_test_report_XXXXXX";
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    ::nftw(
        path.c_str(), [](const char* p, const struct stat*, int, FTW*) { return ::remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Names of the files in `dir` that contain ".tmp.": a failed or finished write
// must not leave its temporary file behind.
int temp_files_in(const std::string& dir) {
  int n = 0;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (const dirent* e = ::readdir(d)) n += std::string(e->d_name).find(".tmp.") != std::string::npos;
  ::closedir(d);
  return n;
}

// Every field set to a distinct value, so a swapped or dropped field shows.
ftb::ScenarioResult filled_result(const std::string& name = "amp", double wall_time_s = 40.0) {
  ftb::ScenarioResult r;
  r.scenario = name;
  r.status = ftb::Status::ok;
  r.reason = "";
  r.world_size = 4;
  r.device = "cuda:0";
  r.precision = ftb::Precision::fp16_mixed;
  r.optimizer = "adam/foreach";
  r.wall_time_s = wall_time_s;
  r.train_samples_per_s = 1234.5;
  r.train_tokens_per_s = 98765.25;
  r.train_samples = 4200;
  r.threads = 4;
  r.distributed = {"nccl", "zero2", 26214400, 3, 1.25, 1000, 500, 2000, 617.25, "reduce_scatter = all_reduce + chunk"};
  r.distributed.launcher = "environment";
  r.distributed.hosts = {"node0", "node1"};
  r.distributed.nodes = 2;
  r.distributed.error_handling = {{"TORCH_NCCL_ASYNC_ERROR_HANDLING", {"3", "ftbench"}},
                                  {"TORCH_NCCL_BLOCKING_WAIT", {"1", "user"}},
                                  {"TORCH_NCCL_ENABLE_MONITORING", {"", "unset"}}};
  r.distributed.evaluation_collective_bytes = {{"all_gather", 4096}, {"all_reduce", 216}};  // v5: evaluation's apart
  r.distributed.evaluation_collective_wait_s = 0.125;
  r.parameter_count = 172738;  // v5: memory measured per phase
  r.memory_phases.source = "tracked_tensors";
  r.memory_phases.training = {{2042912, 2042900}, 2042912};
  r.memory_phases.evaluation = {{1381936, 1381936}, 1381936};
  r.val_acc = 0.9217;
  r.test_acc = 0.8992;
  r.test_loss = 0.2875;
  r.epochs = {{1, 0.41, 0.8981, 0.22, 0.9217, 400.5}, {2, 0.13, 0.9502, 0.24, 0.9209, 401.25}};
  for (int64_t i = 0; i < 7; ++i) {
    ftb::StepRecord s;
    s.step = i;
    s.epoch = 1 + i / 4;
    s.step_ms = 10.0 + 0.125 * static_cast<double>(i);
    s.loss = 0.7 - 0.01 * static_cast<double>(i);
    s.wait_ms = 0.5;
    s.samples = 12;
    s.tokens = 6144 - i;
    s.seq_len = 512;
    r.steps.push_back(s);
  }
  r.peak_bytes = 3LL << 30;
  r.peak_bytes_source = "cuda_max_allocated";
  r.repeats = {{41.0, 1200.0, 96000.0, 0.92, 0.90, (3LL << 30) - 5},
               {40.0, 1234.5, 98765.25, 0.9217, 0.8992, 3LL << 30}};
  r.step_ms_median = 10.25;
  r.warmup_steps = 3;
  r.model_tflops_per_s = 123.5;
  r.mfu = 0.3125;
  r.loader_wait_s = 1.5;
  r.skipped_steps = 3;
  r.capture_time_s = 0.25;
  r.checkpoint_epoch = 2;
  r.extra = {{"loss_scale_final", 32768.0}, {"skipped_steps", 2}};
  return r;
}

ftb::ScenarioResult skipped_result(const std::string& name, const std::string& reason) {
  ftb::ScenarioResult r;
  r.scenario = name;
  r.status = ftb::Status::skipped;
  r.reason = reason;
  return r;
}

ftb::Report sample_report() {
  ftb::Report report;
  report.environment = json{{"host", "testhost"}, {"gpus", json::array()}};
  report.config = {{"preset", "smoke"}, {"epochs", 3}};
  report.results.push_back(filled_result("baseline", 100.0));
  report.results.push_back(filled_result("amp", 40.0));
  report.results.push_back(skipped_result("cuda_graph", "needs CUDA: no CUDA device visible"));
  return report;
}

void check_same(const ftb::ScenarioResult& a, const ftb::ScenarioResult& b) {
  CHECK(a.scenario == b.scenario);
  CHECK(a.status == b.status);
  CHECK(a.reason == b.reason);
  CHECK(a.world_size == b.world_size);
  CHECK(a.device == b.device);
  CHECK(a.precision == b.precision);
  CHECK(a.wall_time_s == b.wall_time_s);
  CHECK(a.train_samples_per_s == b.train_samples_per_s);
  CHECK(a.train_tokens_per_s == b.train_tokens_per_s);
  CHECK(a.train_samples == b.train_samples);
  CHECK(a.threads == b.threads);
  CHECK(a.distributed.backend == b.distributed.backend);
  CHECK(a.distributed.strategy == b.distributed.strategy);
  CHECK(a.distributed.bucket_cap_bytes == b.distributed.bucket_cap_bytes);
  CHECK(a.distributed.buckets == b.distributed.buckets);
  CHECK(a.distributed.collective_wait_s == b.distributed.collective_wait_s);
  CHECK(a.distributed.optimizer_state_bytes_per_rank == b.distributed.optimizer_state_bytes_per_rank);
  CHECK(a.distributed.grad_bytes_per_rank == b.distributed.grad_bytes_per_rank);
  CHECK(a.distributed.grad_staging_bytes == b.distributed.grad_staging_bytes);
  CHECK(a.distributed.per_rank_samples_per_s == b.distributed.per_rank_samples_per_s);
  CHECK(a.distributed.comm_fallback == b.distributed.comm_fallback);
  CHECK(a.distributed.launcher == b.distributed.launcher);  // v5's launcher, nodes, hosts, NCCL modes
  CHECK(a.distributed.nodes == b.distributed.nodes);
  CHECK(a.distributed.hosts == b.distributed.hosts);
  CHECK((a.distributed.error_handling == b.distributed.error_handling));  // (( )): no printer for the setting
  CHECK(a.val_acc == b.val_acc);
  CHECK(a.test_acc == b.test_acc);
  CHECK(a.test_loss == b.test_loss);
  REQUIRE(a.epochs.size() == b.epochs.size());
  for (size_t i = 0; i < a.epochs.size(); ++i) {
    CHECK(a.epochs[i].epoch == b.epochs[i].epoch);
    CHECK(a.epochs[i].train_loss == b.epochs[i].train_loss);
    CHECK(a.epochs[i].train_acc == b.epochs[i].train_acc);
    CHECK(a.epochs[i].val_loss == b.epochs[i].val_loss);
    CHECK(a.epochs[i].val_acc == b.epochs[i].val_acc);
    CHECK(a.epochs[i].time_s == b.epochs[i].time_s);
  }
  CHECK(a.peak_bytes == b.peak_bytes);
  CHECK(a.peak_bytes_source == b.peak_bytes_source);
  CHECK(a.parameter_count == b.parameter_count);
  CHECK(a.memory_phases.source == b.memory_phases.source);
  CHECK(a.memory_phases.training.per_rank == b.memory_phases.training.per_rank);
  CHECK(a.memory_phases.training.modelled_bytes == b.memory_phases.training.modelled_bytes);
  CHECK(a.memory_phases.evaluation.per_rank == b.memory_phases.evaluation.per_rank);
  CHECK(a.memory_phases.evaluation.modelled_bytes == b.memory_phases.evaluation.modelled_bytes);
  CHECK(a.distributed.evaluation_collective_bytes == b.distributed.evaluation_collective_bytes);
  CHECK(a.distributed.evaluation_collective_wait_s == b.distributed.evaluation_collective_wait_s);
  REQUIRE(a.repeats.size() == b.repeats.size());
  for (size_t i = 0; i < a.repeats.size(); ++i) {
    CHECK(a.repeats[i].wall_time_s == b.repeats[i].wall_time_s);
    CHECK(a.repeats[i].train_samples_per_s == b.repeats[i].train_samples_per_s);
    CHECK(a.repeats[i].train_tokens_per_s == b.repeats[i].train_tokens_per_s);
    CHECK(a.repeats[i].val_acc == b.repeats[i].val_acc);
    CHECK(a.repeats[i].test_acc == b.repeats[i].test_acc);
    CHECK(a.repeats[i].peak_bytes == b.repeats[i].peak_bytes);
  }
  CHECK(a.step_ms_median == b.step_ms_median);
  CHECK(a.warmup_steps == b.warmup_steps);
  CHECK(a.model_tflops_per_s == b.model_tflops_per_s);
  CHECK(a.mfu == b.mfu);
  CHECK(a.loader_wait_s == b.loader_wait_s);
  CHECK(a.skipped_steps == b.skipped_steps);
  CHECK(a.capture_time_s == b.capture_time_s);
  CHECK(a.checkpoint_epoch == b.checkpoint_epoch);
  CHECK(a.extra == b.extra);
}

// Runs `write` and returns the InputError's message ("" when none was thrown).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const ftb::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("status names round trip and an unknown one is an InputError") {
  for (auto s : {ftb::Status::ok, ftb::Status::skipped, ftb::Status::failed}) {
    CHECK(ftb::status_from_string(ftb::to_string(s)) == s);
  }
  CHECK(ftb::to_string(ftb::Status::skipped) == "skipped");
  CHECK_THROWS_AS(ftb::status_from_string("OK"), ftb::InputError);
}

TEST_CASE("a filled ScenarioResult survives JSON text and back (steps excepted)") {
  const ftb::ScenarioResult r = filled_result();
  const json parsed = json::parse(ftb::to_json(r).dump());
  const ftb::ScenarioResult back = ftb::result_from_json(parsed);
  check_same(r, back);
  CHECK(back.steps.empty());  // steps go to steps.csv, not report.json
}

TEST_CASE("phases are each phase's median over repeats, and each repeat's survive JSON") {
  ftb::ScenarioResult r;
  r.scenario = "baseline";
  for (double forward : {1.0, 3.0, 2.0}) {
    ftb::RepeatSample s;
    s.wall_time_s = forward + 1;
    s.phases.clock = ftb::PhaseClock::steady_clock;
    s.phases[ftb::Phase::forward] = forward;
    s.phases[ftb::Phase::backward] = 2 * forward;
    r.repeats.push_back(s);
  }
  r.phases = r.repeats.back().phases;  // what a scenario leaves: its last repeat's
  ftb::aggregate_repeats(r);
  CHECK(r.phases.clock == ftb::PhaseClock::steady_clock);
  CHECK(r.phases[ftb::Phase::forward] == 2.0);
  CHECK(r.phases[ftb::Phase::backward] == 4.0);
  const ftb::ScenarioResult back = ftb::result_from_json(nlohmann::json::parse(ftb::to_json(r).dump()));
  REQUIRE(back.repeats.size() == 3);
  CHECK(back.repeats[1].phases[ftb::Phase::forward] == 3.0);
  CHECK(back.phases[ftb::Phase::forward] == 2.0);
  // A repeat without phases (an old report's samples): the row keeps its own.
  r.repeats[0].phases = {};
  r.phases[ftb::Phase::forward] = 7.0;
  ftb::aggregate_repeats(r);
  CHECK(r.phases[ftb::Phase::forward] == 7.0);
}

TEST_CASE("a diverged (NaN) loss is written as null and read back as NaN") {
  ftb::ScenarioResult r = filled_result();
  r.test_loss = std::numeric_limits<double>::quiet_NaN();
  const json parsed = json::parse(ftb::to_json(r).dump());
  CHECK(parsed.at("loss").at("test").is_null());
  CHECK(std::isnan(ftb::result_from_json(parsed).test_loss));
}

TEST_CASE("report.json holds the contract keys") {
  const json j = ftb::report_to_json(sample_report());
  CHECK(j.at("schema") == "ftbench.report/5");
  CHECK(j.at("environment").at("host") == "testhost");
  CHECK(j.at("config").at("preset") == "smoke");
  REQUIRE(j.at("results").size() == 3);
  const json& r = j.at("results").at(1);
  for (const char* path :
       {"/scenario", "/status", "/reason", "/world_size", "/device", "/precision", "/wall_time_s",
        "/throughput/train_samples_per_s", "/throughput/train_tokens_per_s", "/accuracy/val", "/accuracy/test",
        "/loss/test", "/epochs/0/epoch", "/epochs/0/train_loss", "/epochs/0/train_acc", "/epochs/0/val_loss",
        "/epochs/0/val_acc", "/epochs/0/time_s", "/memory/peak_bytes", "/memory/source", "/repeats",
        "/samples/1/wall_time_s", "/samples/1/peak_bytes", "/efficiency/step_ms_median",
        "/efficiency/warmup_steps", "/efficiency/model_tflops_per_s", "/efficiency/mfu", "/data/loader_wait_s",
        "/technique/skipped_steps", "/technique/capture_time_s", "/technique/checkpoint_epoch",
        "/extra/loss_scale_final"}) {
    CAPTURE(path);
    CHECK(r.contains(json::json_pointer(path)));
  }
  CHECK(r.at("scenario") == "amp");
  CHECK(r.at("status") == "ok");
  CHECK(r.at("repeats") == 2);
  CHECK(r.at("samples").size() == 2);
  CHECK(r.at("throughput").at("train_samples_per_s") == 1234.5);
  CHECK(r.at("memory").at("peak_bytes") == (3LL << 30));
  CHECK_FALSE(r.contains("steps"));
  const json& skipped = j.at("results").at(2);
  CHECK(skipped.at("status") == "skipped");
  CHECK(skipped.at("reason") == "needs CUDA: no CUDA device visible");
}

TEST_CASE("write_report then read_report gives the same report") {
  TempDir dir;
  const ftb::Report report = sample_report();
  const std::string path = dir.file("report.json");
  ftb::write_report(path, report);
  const ftb::Report back = ftb::read_report(path);
  CHECK(back.environment == report.environment);
  CHECK(back.config == report.config);
  REQUIRE(back.results.size() == report.results.size());
  for (size_t i = 0; i < back.results.size(); ++i) check_same(back.results[i], report.results[i]);
  CHECK(temp_files_in(dir.path) == 0);
}

TEST_CASE("read_report errors are InputErrors naming the file and the problem") {
  TempDir dir;
  const json good = ftb::report_to_json(sample_report());

  SUBCASE("missing file") {
    const std::string path = dir.file("absent.json");
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
  }
  SUBCASE("bad JSON") {
    const std::string path = dir.file("bad.json");
    spit(path, "{\"schema\": \"ftbench.report/1\", ");
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
    CHECK(msg.find("not valid JSON") != std::string::npos);
  }
  SUBCASE("wrong schema") {
    const std::string path = dir.file("schema.json");
    json j = good;
    j["schema"] = "ftbench.report/0";
    spit(path, j.dump());
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
    CHECK(msg.find("ftbench.report/0") != std::string::npos);
  }
  SUBCASE("no schema at all (some other JSON file)") {
    const std::string path = dir.file("other.json");
    spit(path, "[1, 2, 3]");
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
  }
  SUBCASE("missing nested key") {
    const std::string path = dir.file("missing.json");
    json j = good;
    j["results"][1]["throughput"].erase("train_samples_per_s");
    spit(path, j.dump());
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
    CHECK(msg.find("results[1]") != std::string::npos);
    CHECK(msg.find("throughput.train_samples_per_s") != std::string::npos);
  }
  SUBCASE("wrong type") {
    const std::string path = dir.file("type.json");
    json j = good;
    j["results"][0]["wall_time_s"] = "100";
    spit(path, j.dump());
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
    CHECK(msg.find("wall_time_s") != std::string::npos);
  }
  SUBCASE("unknown status") {
    const std::string path = dir.file("status.json");
    json j = good;
    j["results"][2]["status"] = "maybe";
    spit(path, j.dump());
    const std::string msg = input_error_of([&] { ftb::read_report(path); });
    CHECK(msg.find(path) == 0);
    CHECK(msg.find("maybe") != std::string::npos);
  }
  SUBCASE("repeats disagrees with samples") {
    const std::string path = dir.file("repeats.json");
    json j = good;
    j["results"][0]["repeats"] = 5;
    spit(path, j.dump());
    CHECK(input_error_of([&] { ftb::read_report(path); }).find(path) == 0);
  }
}

// A write that fails halfway (here: the file-size limit, as a full disk would)
// must leave the previous report byte for byte. Writing in place would have
// truncated it before failing.
TEST_CASE("write_report keeps the old report when the write fails midway") {
  TempDir dir;
  const std::string path = dir.file("report.json");
  ftb::write_report(path, sample_report());
  const std::string before = slurp(path);
  REQUIRE(!before.empty());

  ftb::Report bigger = sample_report();
  bigger.results[0].reason = std::string(64 * 1024, 'x');  // well past the limit below

  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  rlimit small = saved;
  small.rlim_cur = 4096;
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of a core dump
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string error;
  try {
    ftb::write_report(path, bigger);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);  // restore before any CHECK can print
  std::signal(SIGXFSZ, old_handler);

  CHECK(error.find(path) == 0);
  CHECK(slurp(path) == before);
  CHECK(temp_files_in(dir.path) == 0);
  CHECK_NOTHROW(ftb::read_report(path));
}

TEST_CASE("write_report keeps the old report when its temporary file cannot be created") {
  TempDir dir;
  const std::string path = dir.file("report.json");
  ftb::write_report(path, sample_report());
  const std::string before = slurp(path);
  // A directory squatting on the temporary name makes open() fail.
  REQUIRE(::mkdir((path + ".tmp." + std::to_string(::getpid())).c_str(), 0755) == 0);
  ftb::Report changed = sample_report();
  changed.config["epochs"] = 99;
  CHECK_THROWS_AS(ftb::write_report(path, changed), std::runtime_error);
  CHECK(slurp(path) == before);
}

TEST_CASE("write_report into a missing directory throws and creates nothing") {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/report.json");
  CHECK_THROWS_AS(ftb::write_report(path, sample_report()), std::runtime_error);
  CHECK_FALSE(exists(dir.file("no")));
}

TEST_CASE("steps.csv has one row per recorded step with the documented columns") {
  ftb::Report report = sample_report();
  report.results[0].scenario = "odd,name";
  const std::string csv = ftb::steps_csv(report.results);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line == "scenario,step,epoch,step_ms,loss,wait_ms,samples,tokens,seq_len");
  int rows = 0;
  std::string first;
  while (std::getline(in, line)) {
    if (rows == 0) first = line;
    ++rows;
  }
  CHECK(rows == 14);  // 7 steps in each of the two ok results, none for the skipped one
  CHECK(first == "\"odd,name\",0,1,10,0.7,0.5,12,6144,512");

  TempDir dir;
  ftb::write_steps_csv(dir.file("steps.csv"), report.results);
  CHECK(slurp(dir.file("steps.csv")) == csv);
}

TEST_CASE("speed-up table: baseline, a faster row, and a skipped row in the not-run list") {
  const std::string table = ftb::speedup_table_markdown(sample_report());
  CAPTURE(table);
  std::istringstream in(table);
  std::string header, rule, base, amp, line;
  std::getline(in, header);
  std::getline(in, rule);
  std::getline(in, base);
  std::getline(in, amp);
  std::getline(in, line);
  CHECK(line.empty());  // then what did not run, and the legend
  std::getline(in, line);
  CHECK(line.empty());
  std::getline(in, line);
  CHECK(line == "Not run here:");
  std::getline(in, line);
  CHECK(line == "- cuda_graph: needs CUDA: no CUDA device visible");
  std::getline(in, line);
  CHECK(line.empty());
  std::getline(in, line);
  CHECK(line.rfind("speed-up: baseline's wall time", 0) == 0);
  CHECK_FALSE(std::getline(in, line));
  CHECK(header.find("| scenario") == 0);
  for (const char* col : {"status", "device", "ranks", "threads", "precision", "wall time", "speed-up", "samples/s",
                          "test acc %", "val acc %", "peak MiB", "MFU (of peak", "notes"}) {
    CHECK(header.find(col) != std::string::npos);
  }
  CHECK(rule.find("---:") != std::string::npos);  // numbers right-aligned
  CHECK(base.find("| baseline") == 0);
  CHECK(base.find("1.00x") != std::string::npos);
  CHECK(base.find("1:40.0 (100.00 s)") != std::string::npos);
  CHECK(amp.find("| amp") == 0);
  CHECK(amp.find("2.50x [") != std::string::npos);  // 100 s / 40 s, with the interval of 2 repeats
  CHECK(amp.find("0:40.0 (40.00 s)") != std::string::npos);
  CHECK(amp.find("1234.5") != std::string::npos);
  CHECK(amp.find("89.92") != std::string::npos);    // test acc %
  CHECK(amp.find("92.17") != std::string::npos);    // val acc %
  CHECK(amp.find("3072.0") != std::string::npos);   // 3 GiB in MiB
  CHECK(amp.find("31.2") != std::string::npos);     // MFU %
  CHECK(table.find("| cuda_graph") == std::string::npos);  // not a row of the table
  // Every line has the same number of cells.
  auto pipes = [](const std::string& s) { return std::count(s.begin(), s.end(), '|'); };
  CHECK(pipes(header) == pipes(rule));
  CHECK(pipes(header) == pipes(base));
  CHECK(pipes(header) == pipes(amp));
}

TEST_CASE("speed-up table: notes are numbered footnotes, the same note one number, each row its refs") {
  auto report = sample_report();
  report.results[0].reason = "";  // baseline
  report.results[1].status = ftb::Status::failed;
  report.results[1].reason = "out of memory";
  auto again = report.results[1];
  again.scenario = "amp_bf16";
  report.results.push_back(again);
  const auto notes = ftb::numbered_notes(report);
  REQUIRE(notes.refs.size() == report.results.size());
  CHECK(notes.refs[0].empty());
  CHECK(notes.refs[1] == "[1]");
  CHECK(notes.refs[3] == "[1]");  // the same text keeps its number
  CHECK(notes.footnotes == std::vector<std::string>{"out of memory"});
  CHECK(notes.not_run == std::vector<std::string>{"cuda_graph: needs CUDA: no CUDA device visible"});
  const std::string table = ftb::speedup_table_markdown(report);
  CAPTURE(table);
  CHECK(table.find("- [1] out of memory\n") != std::string::npos);
  CHECK(table.find("| amp_bf16 ") != std::string::npos);
}

TEST_CASE("speed-up is '-' when the baseline is missing or did not run") {
  ftb::Report report = sample_report();
  report.results[0] = skipped_result("baseline", "a | pipe\nand a newline");
  const std::string table = ftb::speedup_table_markdown(report);
  CAPTURE(table);
  CHECK(table.find("x |") == std::string::npos);
  CHECK(table.find("- baseline: a | pipe\\nand a newline\n") != std::string::npos);  // one line in the list
  CHECK_FALSE(ftb::speedup_vs_baseline(report, report.results[1]).has_value());
  CHECK(ftb::speedup_vs_baseline(sample_report(), sample_report().results[1]).value() == doctest::Approx(2.5));
  // Another scenario as the baseline.
  CHECK(ftb::speedup_table_markdown(sample_report(), "amp").find("0.40x") != std::string::npos);
}

TEST_CASE("speed-up of rows that trained on different sample counts is the samples/s ratio, marked") {
  ftb::Report report = sample_report();
  report.results[0].train_samples = 1000;
  report.results[1].train_samples = 995;  // drop_last on 2 ranks: the same epoch
  CHECK_FALSE(ftb::speedup_from_throughput(report, report.results[1]));
  CHECK(ftb::speedup_vs_baseline(report, report.results[1]).value() == doctest::Approx(2.5));  // wall time
  report.results[1].train_samples = 2000;  // e.g. 2 ranks under max_steps
  report.results[0].train_samples_per_s = 100;
  report.results[1].train_samples_per_s = 150;
  CHECK(ftb::speedup_from_throughput(report, report.results[1]));
  CHECK(ftb::speedup_vs_baseline(report, report.results[1]).value() == doctest::Approx(1.5));
  const std::string table = ftb::speedup_table_markdown(report);
  CAPTURE(table);
  CHECK(table.find("1.50x*") != std::string::npos);
  CHECK(table.find("trained on 2000 samples, baseline on 1000") != std::string::npos);
}

TEST_CASE("Vega-Lite specs: valid JSON, v5 schema, loss subsampled") {
  ftb::Report report = sample_report();
  // A long run: 2,000 steps, more than the chart keeps.
  report.results[1].steps.clear();
  for (int64_t i = 0; i < 2000; ++i) {
    ftb::StepRecord s;
    s.step = i;
    s.samples = 12;
    s.loss = 1.0 / static_cast<double>(i + 1);
    report.results[1].steps.push_back(s);
  }
  const auto specs = ftb::vega_specs(report);
  for (const char* name : ftb::kChartOrder) {
    CAPTURE(name);
    REQUIRE(specs.count(name) == 1);
    const json spec = json::parse(specs.at(name).dump());  // serialisable, and parses back
    CHECK(spec.at("$schema") == "https://vega.github.io/schema/vega-lite/v5.json");
    CHECK(spec.at("data").at("values").is_array());
  }
  // (placeholders, intervals and the other charts: tests/test_render.cpp)
  const json& loss = specs.at("loss").at("data").at("values");
  size_t amp_points = 0;
  int64_t last_step = -1;
  for (const auto& v : loss) {
    if (v.at("scenario") != "amp") continue;
    if (amp_points == 0) CHECK(v.at("step") == 0);
    ++amp_points;
    last_step = v.at("step").get<int64_t>();
  }
  CHECK(amp_points == ftb::kLossChartMaxPoints);
  CHECK(last_step == 1999);
  CHECK(loss.size() == 7 + ftb::kLossChartMaxPoints);  // baseline's 7 steps kept whole
}

TEST_CASE("write_run_outputs writes report, steps, table and charts") {
  TempDir dir;
  const std::string out = dir.file("run1/nested");
  ftb::write_run_outputs(out, sample_report());
  for (const char* f : {"report.json", "steps.csv", "table.md", "charts/speedup.vl.json", "charts/loss.vl.json",
                        "charts/wall_time.vl.json", "charts/throughput.vl.json", "charts/test_accuracy.vl.json",
                        "charts/epochs.vl.json", "charts/step_time.vl.json"}) {
    CAPTURE(f);
    CHECK(is_file(out + "/" + f));
  }
  CHECK(ftb::read_report(out + "/report.json").results.size() == 3);
  CHECK(slurp(out + "/table.md") == ftb::speedup_table_markdown(sample_report()));
  CHECK(temp_files_in(out) == 0);
  CHECK(temp_files_in(out + "/charts") == 0);
}

// 600 hits: the first `right` true; `flip_off` of them made wrong and
// `flip_on` of the wrong made right (from the ends, so the two never meet).
std::vector<bool> hits_600(int right, int flip_off, int flip_on) {
  std::vector<bool> h(600, false);
  for (int i = 0; i < right; ++i) h[static_cast<std::size_t>(i)] = true;
  for (int i = 0; i < flip_off; ++i) h[static_cast<std::size_t>(i)] = false;
  for (int i = 0; i < flip_on; ++i) h[static_cast<std::size_t>(599 - i)] = true;
  return h;
}

void set_hits(ftb::ScenarioResult& r, const std::vector<std::vector<bool>>& per_repeat) {
  for (std::size_t k = 0; k < r.repeats.size(); ++k) r.repeats[k].test_correct = per_repeat[k % per_repeat.size()];
}

TEST_CASE("keeps accuracy: each row against baseline example by example, same / no / cannot tell, no fixed band") {
  ftb::Report report = sample_report();
  REQUIRE(report.results[0].repeats.size() >= 2);
  // No hits kept (older reports): no verdict, the column says "-".
  CHECK_FALSE(ftb::accuracy_vs_baseline(report, report.results[1], "baseline").has_value());
  CHECK_FALSE(ftb::report_to_json(report).at("results")[1].contains("accuracy_vs_baseline"));
  // Baseline 510 of 600; the row loses 40 examples baseline got and gains 10: -5 points, McNemar p < 0.001.
  set_hits(report.results[0], {hits_600(510, 0, 0)});
  set_hits(report.results[1], {hits_600(510, 40, 10)});
  auto v = ftb::accuracy_vs_baseline(report, report.results[1], "baseline");
  REQUIRE(v.has_value());
  CHECK(v->basis == ftb::AccuracyBasis::test_sample);
  CHECK(v->first.counts.only_a == 40);
  CHECK(v->first.counts.only_b == 10);
  CHECK(v->difference == doctest::Approx(-5.0));
  CHECK(v->keeps == ftb::stats::KeepsAccuracy::no);
  auto j = ftb::report_to_json(report);
  CHECK(j.at("results")[1].at("accuracy_vs_baseline").at("keeps_accuracy") == "no");
  CHECK(j.at("results")[1].at("accuracy_vs_baseline").at("verdict") == "lower");
  CHECK(j.at("results")[1].at("accuracy_vs_baseline").at("first_repeats").at("only_reference_right") == 40);
  CHECK_FALSE(j.at("results")[0].contains("accuracy_vs_baseline"));  // baseline itself
  std::string table = ftb::speedup_table_markdown(report);
  CAPTURE(table);
  CHECK(table.find("keeps accuracy (points vs baseline)") != std::string::npos);
  CHECK(table.find("no (-5.0 [") != std::string::npos);
  CHECK(table.find("! test accuracy") == std::string::npos);  // the fixed band is gone
  CHECK(ftb::console_table(report, "baseline").find("| no ") != std::string::npos);
  // 10 examples each way: no difference called, and +-1 point not ruled out on 600 examples.
  set_hits(report.results[1], {hits_600(510, 10, 10)});
  v = ftb::accuracy_vs_baseline(report, report.results[1], "baseline");
  REQUIRE(v.has_value());
  CHECK(v->keeps == ftb::stats::KeepsAccuracy::cannot_tell);
  CHECK(v->decision.reason.ruling == ftb::stats::Ruling::interval_reaches);
  // A wider min_effect (accuracy_min_effect=3 points): the same data rule out +-3 points.
  report.config["accuracy_min_effect"] = 3.0;
  v = ftb::accuracy_vs_baseline(report, report.results[1], "baseline");
  CHECK(v->keeps == ftb::stats::KeepsAccuracy::yes);
  CHECK(ftb::speedup_table_markdown(report).find("+-3 points") != std::string::npos);
  report.config.erase("accuracy_min_effect");
  // Seeds per repeat: paired by seed, a t interval over the seeds' differences.
  report.config["seed_per_repeat"] = "on";
  set_hits(report.results[0], {hits_600(510, 0, 0), hits_600(500, 0, 0), hits_600(520, 0, 0)});
  set_hits(report.results[1], {hits_600(510, 30, 0), hits_600(500, 28, 0), hits_600(520, 33, 0)});
  v = ftb::accuracy_vs_baseline(report, report.results[1], "baseline");
  REQUIRE(v.has_value());
  CHECK(v->basis == ftb::AccuracyBasis::seeds);
  CHECK(v->seeds == static_cast<int>(report.results[0].repeats.size()));
  CHECK(v->difference < -4.5);
  CHECK(v->seed_sd_points > 0);
  CHECK(v->keeps == ftb::stats::KeepsAccuracy::no);
  CHECK(ftb::speedup_table_markdown(report).find("seeds)") != std::string::npos);
  // The row's own spread over its seeds, in report.json.
  const auto spread = ftb::report_to_json(report).at("results")[0].at("test_accuracy_over_seeds");
  CHECK(spread.at("seeds") == report.results[0].repeats.size());
  CHECK(spread.at("sd_points").get<double>() >= 0);
  // Hits of two different split sizes are not compared.
  report.results[1].repeats[0].test_correct.resize(599);
  CHECK_FALSE(ftb::accuracy_vs_baseline(report, report.results[1], "baseline").has_value());
}

// Every accuracy with its interval: k of the n test examples, where the
// whole split was scored; none where n is unknown or the accuracy is not k / n.
TEST_CASE("test accuracy: k of the split's n with its Wilson interval, in report.json and the table, none where n is unknown") {
  ftb::Report report = sample_report();
  report.config["workload"]["test_examples"] = 600;
  report.config["eval_max_batches"] = 0;
  auto& r = report.results[0];
  r.test_acc = 493.0 / 600;  // 82.17 %
  const auto i = ftb::test_accuracy_interval(report, r);
  REQUIRE(i.has_value());
  CHECK(i->correct == 493);
  CHECK(i->n == 600);
  CHECK(i->low == doctest::Approx(78.9).epsilon(0.002));  // Wilson, 95 %
  CHECK(i->high == doctest::Approx(85.0).epsilon(0.002));
  const auto j = ftb::report_to_json(report);
  CHECK(j.at("results")[0].at("test_accuracy").at("correct") == 493);
  CHECK(j.at("results")[0].at("test_accuracy").at("n") == 600);
  CHECK(ftb::format_accuracy(report, r) == "82.17 [78.9, 85.0]");
  CHECK(ftb::speedup_table_markdown(report).find("82.17 [78.9, 85.0]") != std::string::npos);
  // the console's compact form: +- the farther end (82.17 - 78.90 = 3.27), rounded up
  CHECK(ftb::format_accuracy_compact(report, r) == "82.2 +-3.3");
  CHECK(ftb::console_table(report, report.results[0].scenario).find("82.2 +-3.3") != std::string::npos);
  // not k / 600: the accuracy alone, and no key
  r.test_acc = 0.8217;
  CHECK_FALSE(ftb::test_accuracy_interval(report, r).has_value());
  CHECK(ftb::format_accuracy(report, r) == "82.17");
  CHECK(ftb::format_accuracy_compact(report, r) == "82.17");
  CHECK_FALSE(ftb::report_to_json(report).at("results")[0].contains("test_accuracy"));
  // a capped evaluation scored fewer than the split: n unknown
  r.test_acc = 493.0 / 600;
  report.config["eval_max_batches"] = 2;
  CHECK_FALSE(ftb::test_accuracy_interval(report, r).has_value());
  report.config["eval_max_batches"] = 0;
  report.config["workload"].erase("test_examples");
  CHECK_FALSE(ftb::test_accuracy_interval(report, r).has_value());
}
