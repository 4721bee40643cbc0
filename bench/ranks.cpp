#include "bench/ranks.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench/launcher.h"
#include "core/atomic_file.h"
#include "core/dist_env.h"
#include "core/errors.h"
#include "core/trainer.h"
#include "reports/report.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"

namespace ftb {
namespace {

std::vector<std::string>& saved_args() {
  static std::vector<std::string> args;
  return args;
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find this executable (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(n));
}

// Steps are not part of a result's JSON (they go to steps.csv); the parent
// needs them for the efficiency figures.
nlohmann::json steps_to_json(const std::vector<StepRecord>& steps) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : steps)
    a.push_back({s.step, s.epoch, s.step_ms, s.loss, s.wait_ms, s.samples, s.tokens, s.seq_len});
  return a;
}

std::vector<StepRecord> steps_from_json(const nlohmann::json& a) {
  std::vector<StepRecord> out;
  for (const auto& j : a) {
    StepRecord s;
    s.step = j.at(0).get<int64_t>();
    s.epoch = j.at(1).get<int64_t>();
    s.step_ms = j.at(2).get<double>();
    s.loss = j.at(3).is_null() ? std::nan("") : j.at(3).get<double>();
    s.wait_ms = j.at(4).get<double>();
    s.samples = j.at(5).get<int64_t>();
    s.tokens = j.at(6).get<int64_t>();
    s.seq_len = j.at(7).get<int64_t>();
    out.push_back(s);
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void set_invocation(int argc, char** argv) {
  saved_args().assign(argv + 1, argv + argc);
}

bool is_launched_rank() { return std::getenv("FTB_LAUNCH_DIR") != nullptr; }

ScenarioResult run_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank) {
  TempDir dir("ftbench-ranks");
  LaunchOptions o;
  o.program = self_executable();
  o.args = saved_args();
  o.world_size = config.world_size;
  o.threads_per_rank = threads_per_rank;
  // A MASTER_PORT the user exported is honoured (and checked); else a free one.
  const DistEnv env = dist_env_from_environment();
  if (std::getenv("MASTER_ADDR")) o.master_addr = env.master_addr;
  if (std::getenv("MASTER_PORT")) o.master_port = env.master_port;
  o.env = {{"FTB_LAUNCH_SCENARIO", info.name}, {"FTB_LAUNCH_DIR", dir.path()}};
  const LaunchResult launch = launch_ranks(o);

  ScenarioResult r;
  r.scenario = info.name;
  r.world_size = config.world_size;
  if (launch.exit_code != 0) {
    // The first failing rank's own reason, if it wrote one, then the launcher's line.
    std::string reason;
    if (launch.failed_rank >= 0) {
      const std::string why = read_text(dir.path() + "/rank-" + std::to_string(launch.failed_rank) + ".error");
      if (!why.empty()) reason = "rank " + std::to_string(launch.failed_rank) + ": " + why + " (";
    }
    reason += launch.failure + (reason.empty() ? "" : ")");
    throw std::runtime_error(reason);
  }
  const std::string text = read_text(dir.path() + "/result.json");
  if (text.empty()) throw std::runtime_error("rank 0 exited 0 but left no result");
  const auto j = nlohmann::json::parse(text);
  r = result_from_json(j.at("result"));
  r.steps = steps_from_json(j.at("steps"));
  return r;
}

int run_launched_rank(const RunConfig& config, const std::vector<LoopCallback*>& rank0_callbacks) {
  const std::string dir = std::getenv("FTB_LAUNCH_DIR");
  const char* name = std::getenv("FTB_LAUNCH_SCENARIO");
  const DistEnv env = dist_env_from_environment();
  auto fail = [&](const std::string& why) {
    write_file_atomic(dir + "/rank-" + std::to_string(env.rank) + ".error", why);
    std::cerr << "ftbench: error: rank " << env.rank << ": " << why << "\n";
    return 1;
  };
  try {
    const ScenarioInfo* info = name ? find_scenario(name) : nullptr;
    if (!info) return fail(std::string("unknown FTB_LAUNCH_SCENARIO \"") + (name ? name : "") + "\"");
    Workload workload = build_workload(config);
    ScenarioContext ctx;
    if (env.rank == 0) ctx.callbacks = rank0_callbacks;
    ScenarioResult r = run_scenario(*info, workload, config, ctx);
    if (r.status == Status::failed) return fail(r.reason);
    if (env.rank == 0) {
      nlohmann::json j = {{"result", to_json(r)}, {"steps", steps_to_json(r.steps)}};
      write_file_atomic(dir + "/result.json", j.dump());
    }
    return 0;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    return fail(msg);
  }
}

}  // namespace ftb
