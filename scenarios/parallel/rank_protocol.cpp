#include "scenarios/parallel/rank_protocol.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/measure/device.h"
#include "core/base/interrupt.h"
#include "core/train/workload.h"
#include "scenarios/parallel/launcher.h"
#include "scenarios/parallel/rank_env.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "scenarios/parallel/distributed_row.h"
#include "core/measure/op_profiler.h"
#include "scenarios/profile_pass.h"
#include "scenarios/sweep.h"
#include "core/base/json_text.h"

namespace ftb {
namespace {

constexpr const char* kScenarioVar = "FTB_LAUNCH_SCENARIO";
constexpr const char* kDirVar = "FTB_LAUNCH_DIR";
constexpr const char* kThreadsVar = "FTB_THREADS";
// The profiling pass (scenarios/profile_pass.h): the ranks run its config and
// rank 0 profiles, writing the trace to this path ("-": no trace).
constexpr const char* kProfileVar = "FTB_LAUNCH_PROFILE";

std::vector<std::string>& saved_args() {
  static std::vector<std::string> args;
  return args;
}

}  // namespace

std::string self_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find this executable (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(n));
}

void set_invocation(int argc, char** argv) { saved_args().assign(argv + 1, argv + argc); }
const std::vector<std::string>& invocation() { return saved_args(); }

bool is_launched_rank() { return std::getenv(kDirVar) != nullptr; }

namespace {

ScenarioResult launch_row(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank,
                          const std::string& profile_trace) {
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
  o.env = {{kScenarioVar, info.name}, {kDirVar, dir.path()}};
  if (!profile_trace.empty()) o.env[kProfileVar] = profile_trace;
  const LaunchResult launch = launch_ranks(o);
  throw_if_interrupted();  // the launcher stopped the ranks on SIGINT/SIGTERM
  if (launch.exit_code != 0) {
    // The first failing rank's own reason, if it wrote one, then the launcher's line.
    std::string reason;
    if (launch.failed_rank >= 0) {
      const std::string why =
          read_text_file_or_empty(dir.path() + "/rank-" + std::to_string(launch.failed_rank) + ".error");
      if (!why.empty()) reason = "rank " + std::to_string(launch.failed_rank) + ": " + why + " (";
    }
    reason += launch.failure + (reason.empty() ? "" : ")");
    throw std::runtime_error(reason);
  }
  const std::string text = read_text_file_or_empty(dir.path() + "/result.json");
  if (text.empty()) throw std::runtime_error("rank 0 exited 0 but left no result");
  return result_from_json(nlohmann::json::parse(text));
}

// A rank of the profiling pass: the pass's config; rank 0 profiles its steps
// after the warm-up, the others run alongside.
ScenarioResult run_profiled_rank(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                                 const ScenarioContext& ctx, const DistEnv& env, const std::string& trace) {
  const RunConfig c = profile_pass_config(config);
  if (env.rank != 0) return run_scenario(info, workload, c, ctx);
  ProfileRequest request;
  request.first_step = c.warmup_steps + 1;
  request.steps = c.profile;
  request.device = rank_device(c, env);
  if (trace != "-") request.trace_path = trace;
  StepProfiler profiler(request);
  ActiveStepProfiler active(&profiler);
  ScenarioResult r = run_scenario(info, workload, c, ctx);
  r.profile = profiler.finished() ? profiler.profile() : profile_not_taken("rank 0's epoch had fewer than warmup_steps + profile steps");
  return r;
}

}  // namespace

ScenarioResult run_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank) {
  return launch_row(info, config, threads_per_rank, "");
}

OpProfile profile_on_ranks(const ScenarioInfo& info, const RunConfig& config, int threads_per_rank,
                           const std::string& trace_path) {
  const ScenarioResult r = launch_row(info, config, threads_per_rank, trace_path.empty() ? "-" : trace_path);
  return r.profile ? *r.profile : profile_not_taken("rank 0 returned no profile");
}

int run_launched_rank(RunConfig config, const std::vector<LoopCallback*>& rank0_callbacks) {
  const std::string dir = std::getenv(kDirVar);
  const char* name = std::getenv(kScenarioVar);
  const char* threads = std::getenv(kThreadsVar);
  const DistEnv env = dist_env_from_environment();
  auto fail = [&](const std::string& why) {
    try {
      write_file_atomic(dir + "/rank-" + std::to_string(env.rank) + ".error", why);
    } catch (const std::exception&) {
      // the parent still sees the exit status
    }
    std::cerr << "ftbench: error: rank " << env.rank << ": " << why << "\n";
    return 1;
  };
  try {
    const ScenarioInfo* info = name ? find_scenario(name) : nullptr;
    if (!info) return fail(std::string("unknown ") + kScenarioVar + " \"" + (name ? name : "") + "\"");
    config.scenarios = {info->name};
    config.repeats = 1;
    config.world_size = env.world_size;
    configure_threads(threads ? std::atoi(threads) : 0);
    Workload workload = build_workload(config);
    ScenarioContext ctx;
    if (env.rank == 0) ctx.callbacks = rank0_callbacks;
    // Untimed, as the single-process rows' warm-up in the sweep: the rank's
    // first timed step does not pay the process's one-time setup.
    const ScenarioResult header = row_header(*info, config);
    nlohmann::json warmup;
    // The rank's GPU current from its start: its warm-up comes before the
    // group, and a context on GPU 0 fails under EXCLUSIVE_PROCESS.
    const torch::Device device = header.status == Status::ok ? rank_device(config, env) : torch::Device(torch::kCPU);
    const DeviceScope on(device);
    if (header.status == Status::ok) warmup = warm_up_record(workload, config, device, header.precision);
    const char* profile_trace = std::getenv(kProfileVar);
    ScenarioResult r = profile_trace ? run_profiled_rank(*info, workload, config, ctx, env, profile_trace)
                                     : run_scenario(*info, workload, config, ctx);
    if (!warmup.is_null()) r.extra["rank_warmup"] = warmup;
    if (r.status == Status::failed) return fail(r.reason);
    if (env.rank == 0) write_file_atomic(dir + "/result.json", json_text(to_json(r, /*with_steps=*/true)));
    return 0;
  } catch (const std::exception& e) {
    return fail(first_line(e.what()));
  }
}

}  // namespace ftb
