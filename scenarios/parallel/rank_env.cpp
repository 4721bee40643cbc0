// Rank and rendezvous from a launcher's environment variables (see
// rank_env.h). Every value is checked here, once, so a bad job script fails
// at start-up with the variable's name instead of hanging at the rendezvous.
#include "scenarios/parallel/rank_env.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "core/base/errors.h"

namespace ftb {
namespace {

using Getenv = std::function<const char*(const char*)>;

std::string quoted(const std::string& v) { return "\"" + v + "\""; }

// A non-negative decimal integer (no sign, no spaces), else InputError naming
// the variable and quoting its value.
int parse_count(const char* name, const std::string& value) {
  long long v = 0;
  const char* end = value.data() + value.size();
  const auto [p, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec == std::errc::invalid_argument || p != end)
    input_error(name, "expected a non-negative integer, got " + quoted(value));
  if (ec == std::errc::result_out_of_range || v > INT_MAX)
    input_error(name, "is too large, got " + quoted(value));
  if (v < 0) input_error(name, "must not be negative, got " + quoted(value));
  return static_cast<int>(v);
}

int parse_at_least_one(const char* name, const std::string& value) {
  const int v = parse_count(name, value);
  if (v < 1) input_error(name, "must be at least 1, got " + quoted(value));
  return v;
}

// The variables one launcher uses for the four numbers.
struct Names {
  Launcher launcher;  // RANK/WORLD_SIZE: refined by which_rank_launcher
  const char* rank;
  const char* world_size;
  const char* local_rank;
  const char* local_world_size;  // nullptr: SLURM, worked out separately
};

constexpr Names kTorchrun{Launcher::torchrun, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"};
constexpr Names kOpenMpi{Launcher::openmpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                         "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"};
constexpr Names kSlurm{Launcher::slurm, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr};

// SLURM's tasks on this node: SLURM_NTASKS_PER_NODE when the job asked for a
// fixed count, else the first entry of SLURM_TASKS_PER_NODE ("4(x2),2" = two
// nodes with 4 tasks, then one with 2). The first entry is an upper bound on
// the later ones (SLURM fills nodes in order), so local_rank stays below it.
// Returns 0 when neither is set.
int slurm_local_world_size(const Getenv& get) {
  if (const char* v = get("SLURM_NTASKS_PER_NODE"))
    return parse_at_least_one("SLURM_NTASKS_PER_NODE", v);
  const char* v = get("SLURM_TASKS_PER_NODE");
  if (!v) return 0;
  const std::string s = v;
  const std::size_t n = s.find_first_not_of("0123456789");
  if (n == 0 || (n != std::string::npos && s[n] != '(' && s[n] != ','))
    input_error("SLURM_TASKS_PER_NODE", "expected a list like \"4(x2),2\", got " + quoted(s));
  return parse_at_least_one("SLURM_TASKS_PER_NODE", s.substr(0, n));
}

void read_ranks(const Getenv& get, const Names& n, DistEnv& e) {
  const char* rank = get(n.rank);
  const char* world = get(n.world_size);
  if (!world) input_error(n.world_size, std::string("unset, but ") + n.rank + " is set; a launcher sets both");
  if (!rank) input_error(n.rank, std::string("unset, but ") + n.world_size + " is set; a launcher sets both");
  e.launched = true;
  e.launcher = n.launcher;
  e.world_size = parse_at_least_one(n.world_size, world);
  e.rank = parse_count(n.rank, rank);
  if (e.rank >= e.world_size)
    input_error(n.rank, quoted(rank) + " is not below " + n.world_size + "=" + std::to_string(e.world_size));

  // The local world size, and the variable it came from (the world size's
  // when none was set: one node).
  e.local_world_size = e.world_size;
  const char* lws_name = n.world_size;
  if (n.local_world_size) {
    if (const char* v = get(n.local_world_size)) {
      e.local_world_size = parse_at_least_one(n.local_world_size, v);
      lws_name = n.local_world_size;
    }
  } else if (const int slurm = slurm_local_world_size(get)) {
    e.local_world_size = slurm;
    lws_name = get("SLURM_NTASKS_PER_NODE") ? "SLURM_NTASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
  }
  if (e.local_world_size > e.world_size)
    input_error(lws_name, quoted(std::to_string(e.local_world_size)) + " ranks on this node is more than " +
                              n.world_size + "=" + std::to_string(e.world_size));

  const std::string lws = std::string(lws_name) + "=" + std::to_string(e.local_world_size);
  if (const char* v = get(n.local_rank)) {
    e.local_rank = parse_count(n.local_rank, v);
    if (e.local_rank >= e.local_world_size) input_error(n.local_rank, quoted(v) + " is not below " + lws);
  } else {
    e.local_rank = e.rank;
    if (e.local_rank >= e.local_world_size)
      input_error(n.local_rank, std::string("unset, so it defaults to ") + n.rank + "=" + std::to_string(e.rank) +
                                    ", which is not below " + lws + "; export " + n.local_rank);
  }
}

// Who set RANK/WORLD_SIZE: ftbench's launcher marks its ranks; torchrun's
// agent gives every worker TORCHELASTIC_RUN_ID (its --rdzv-id, "none" by
// default); otherwise a job script (or a person) exported them.
Launcher which_rank_launcher(const Getenv& get) {
  if (const char* own = get(kOwnLauncherVar); own && std::string(own) == "1") return Launcher::ftbench;
  if (get("TORCHELASTIC_RUN_ID")) return Launcher::torchrun;
  return Launcher::environment;
}

}  // namespace

const char* to_string(Launcher l) {
  switch (l) {
    case Launcher::none: return "none";
    case Launcher::ftbench: return "ftbench";
    case Launcher::torchrun: return "torchrun";
    case Launcher::environment: return "environment";
    case Launcher::slurm: return "slurm";
    case Launcher::openmpi: return "openmpi";
  }
  return "none";
}

DistEnv dist_env_from(const Getenv& getenv_fn) {
  const Getenv& get = getenv_fn;
  DistEnv e;
  if (get("RANK") || get("WORLD_SIZE")) {
    read_ranks(get, kTorchrun, e);
    e.launcher = which_rank_launcher(get);
  } else if (get("OMPI_COMM_WORLD_RANK") || get("OMPI_COMM_WORLD_SIZE")) {
    read_ranks(get, kOpenMpi, e);
  } else if (get("SLURM_PROCID") && get("SLURM_NTASKS") && (get("SLURM_STEP_ID") || get("SLURM_STEPID"))) {
    read_ranks(get, kSlurm, e);
  }

  // The rendezvous: read even when not launched, so a single process (or
  // ftbench's own launcher) can take its port from the environment.
  if (const char* addr = get("MASTER_ADDR")) {
    if (!*addr) input_error("MASTER_ADDR", "is set but empty; expected a host name or IP address of rank 0's machine");
    e.master_addr = addr;
  } else if (e.world_size > 1 && (e.launcher == Launcher::slurm || e.launcher == Launcher::openmpi)) {
    const std::string launcher = e.launcher == Launcher::slurm ? "srun" : "mpirun";
    input_error("MASTER_ADDR",
                "unset, and " + launcher + " started " + std::to_string(e.world_size) +
                    " ranks that must meet at rank 0's machine; export MASTER_ADDR (rank 0's host) in the job "
                    "script, e.g. export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1), "
                    "and optionally MASTER_PORT (default 29500)");
  } else if (e.launcher == Launcher::environment && e.world_size > e.local_world_size) {
    // A plain environment across nodes would meet at 127.0.0.1 and hang
    // until dist_timeout_s.
    input_error("MASTER_ADDR", "unset, and WORLD_SIZE=" + std::to_string(e.world_size) + " spans more than this node's " +
                                   "LOCAL_WORLD_SIZE=" + std::to_string(e.local_world_size) +
                                   " ranks: they must meet at rank 0's machine; export MASTER_ADDR (rank 0's host "
                                   "or address) on every node, and optionally MASTER_PORT (default 29500)");
  }
  if (const char* port = get("MASTER_PORT")) {
    const int p = parse_count("MASTER_PORT", port);
    if (p < 1 || p > 65535) input_error("MASTER_PORT", "expected a TCP port in 1..65535, got " + quoted(port));
    e.master_port = p;
  }
  return e;
}

const char* world_size_variable(Launcher l) {
  switch (l) {
    case Launcher::slurm: return kSlurm.world_size;
    case Launcher::openmpi: return kOpenMpi.world_size;
    case Launcher::none:
    case Launcher::ftbench:
    case Launcher::torchrun:
    case Launcher::environment: break;
  }
  return kTorchrun.world_size;
}

void check_world_size_asked(const DistEnv& env, int asked) {
  if (!env.launched || asked == 0 || asked == env.world_size) return;
  const std::string started = std::to_string(env.world_size);
  std::string how;
  switch (env.launcher) {
    case Launcher::slurm: how = "srun -n " + std::to_string(asked); break;
    case Launcher::openmpi: how = "mpirun -np " + std::to_string(asked); break;
    case Launcher::torchrun: how = "torchrun --nproc-per-node/--nnodes"; break;
    case Launcher::none:
    case Launcher::ftbench:
    case Launcher::environment: how = "WORLD_SIZE=" + std::to_string(asked); break;
  }
  input_error(world_size_variable(env.launcher),
              "\"" + started + "\": " + to_string(env.launcher) + " started " + started + " ranks, but world_size " +
                  std::to_string(asked) + " was asked (--world-size or world_size=); under a launcher its count " +
                  "is the world size: drop world_size, or start " + std::to_string(asked) + " ranks (" + how + ")");
}

const char* to_string(SetBy s) {
  switch (s) {
    case SetBy::ftbench: return "ftbench";
    case SetBy::user: return "user";
    case SetBy::unset: return "unset";
  }
  return "unset";
}

NcclModes nccl_error_modes(const Getenv& getenv_fn) {
  struct Var {
    const char* name;
    const char* older;  // the name PyTorch still reads after it (nullptr: none)
    const char* ours;   // ftbench's value (nullptr: recorded only)
  };
  static const Var kVars[] = {
      {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING", "3"},  // SkipCleanUp: see rank_env.h
      {"TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT", nullptr},
      {"TORCH_NCCL_ENABLE_MONITORING", nullptr, nullptr},
      {"TORCH_NCCL_DUMP_ON_TIMEOUT", nullptr, nullptr},
      {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", nullptr, kNcclDumpWaitMs},  // the wait after a timeout: see rank_env.h
  };
  NcclModes modes;
  for (const Var& v : kVars) {
    const char* theirs = getenv_fn(v.name);
    if ((!theirs || !*theirs) && v.older) theirs = getenv_fn(v.older);
    if (theirs && *theirs)
      modes[v.name] = {theirs, SetBy::user};
    else if (v.ours)
      modes[v.name] = {v.ours, SetBy::ftbench};
    else
      modes[v.name] = {"", SetBy::unset};
  }
  return modes;
}

namespace {
std::optional<NcclModes>& decided_modes() {
  static std::optional<NcclModes> modes;
  return modes;
}
}  // namespace

void set_nccl_error_modes(const Getenv& getenv_fn, const std::function<void(const char*, const char*)>& setenv_fn) {
  bool rank_of_many = false;
  try {
    const DistEnv env = dist_env_from(getenv_fn);
    rank_of_many = env.launched && env.world_size > 1;
  } catch (const InputError&) {
    // A malformed variable: the row's own read reports it, naming it.
  }
  NcclModes modes = nccl_error_modes(getenv_fn);
  if (!rank_of_many) {
    // Nothing set: the record says what the environment holds, not ftbench's values.
    for (auto& [name, mode] : modes)
      if (mode.set_by == SetBy::ftbench) mode = {"", SetBy::unset};
    decided_modes() = std::move(modes);
    return;
  }
  for (const auto& [name, mode] : modes)
    if (mode.set_by == SetBy::ftbench) setenv_fn(name.c_str(), mode.value.c_str());
  decided_modes() = std::move(modes);
}

void set_nccl_error_modes_in_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    set_nccl_error_modes([](const char* n) -> const char* { return std::getenv(n); },
                         [](const char* n, const char* v) { ::setenv(n, v, /*overwrite=*/1); });
  });
}

NcclModes nccl_error_modes_in_effect() {
  if (decided_modes()) return *decided_modes();
  return nccl_error_modes([](const char* n) -> const char* { return std::getenv(n); });
}

DistEnv dist_env_from_environment() {
  return dist_env_from([](const char* name) -> const char* { return std::getenv(name); });
}

DistEnv dist_env_or_world_of_one() {
  DistEnv env = dist_env_from_environment();
  if (env.launched) return env;
  DistEnv one;
  one.master_port = 0;
  return one;
}

std::string gpu_sharing_problem(const DistEnv& env, int cuda_devices, const char* cuda_visible_devices) {
  if (!env.launched || env.local_world_size <= cuda_devices) return "";
  const bool own_gpu = cuda_devices == 1 && cuda_visible_devices != nullptr && *cuda_visible_devices != '\0' &&
                       std::string(cuda_visible_devices).find(',') == std::string::npos;
  if (own_gpu) return "";
  return std::to_string(env.local_world_size) + " ranks on this node (" + to_string(env.launcher) + ") but " +
         std::to_string(cuda_devices) + " GPU" + (cuda_devices == 1 ? "" : "s") +
         " visible to each: NCCL refuses two ranks on one GPU; launch at most " + std::to_string(cuda_devices) +
         " ranks per node (torchrun --nproc-per-node " + std::to_string(std::max(1, cuda_devices)) +
         "), or give each rank its own CUDA_VISIBLE_DEVICES";
}

}  // namespace ftb
