// Which rank of a distributed run this process is, read from the variables a
// launcher sets: torchrun's (and `ftbench`'s own launcher's) RANK/WORLD_SIZE...,
// Open MPI's `mpirun` (OMPI_COMM_WORLD_*), or SLURM's `srun` (SLURM_PROCID...),
// and which launcher that was (the report's distributed.launcher). RANK /
// WORLD_SIZE alone are a job script's own environment: torchrun is told
// apart by the TORCHELASTIC_RUN_ID its agent gives every worker, ftbench's
// launcher by kOwnLauncherVar.
// Kept apart from the process-group code so it is torch-free and testable
// without touching the real environment (the lookup is a parameter).
//
// Under mpirun or srun the rendezvous address still comes from MASTER_ADDR and
// MASTER_PORT: those launchers do not choose one, so a multi-rank job script
// must export MASTER_ADDR (e.g. for SLURM,
// `export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)`)
// and may export MASTER_PORT (default 29500, torchrun's).
//
// A SLURM batch script's own shell carries SLURM_PROCID=0 and SLURM_NTASKS
// but is no task of a step: ftbench there is one plain process (see
// dist_env_from); run it through `srun` for SLURM's ranks.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace ftb {

// Who started the ranks. `none`: not launched (one process, or ranks that a
// test runs as threads of one process).
enum class Launcher { none, ftbench, torchrun, environment, slurm, openmpi };
// "none", "ftbench", "torchrun", "environment" (RANK/WORLD_SIZE set by hand
// or a job script), "slurm", "openmpi": the report's words.
const char* to_string(Launcher l);

// Set to "1" by ftbench's own launcher (launcher.cpp) in every rank it starts.
inline constexpr const char* kOwnLauncherVar = "FTB_LAUNCHER";

struct DistEnv {
  bool launched = false;  // true when a launcher set the variables below
  int rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;  // torchrun's default when unset
  Launcher launcher = Launcher::none;  // none exactly when !launched
};

// Reads the variables through `getenv_fn`, which returns nullptr for an unset
// variable. Precedence: RANK/WORLD_SIZE (ftbench's launcher, torchrun or a
// plain environment), then Open MPI, then SLURM.
// Throws InputError("<VARIABLE>: <what is wrong>") on a malformed or
// inconsistent value, on RANK without WORLD_SIZE (or the reverse, likewise for
// the Open MPI pair), and on a multi-rank mpirun/srun job without MASTER_ADDR.
// SLURM counts as launched only in a task of a job step: SLURM_PROCID,
// SLURM_NTASKS and SLURM_STEP_ID (or the older SLURM_STEPID) all set, as
// srun sets them. An `salloc` shell has SLURM_NTASKS alone; a batch script's
// own shell has SLURM_PROCID=0 and SLURM_NTASKS (the job's task count) but no
// step: it is one plain process, as on any machine (its rows of kind ranks
// start their own ranks), never rank 0 of ranks nobody started (it waited
// out dist_timeout_s at the rendezvous: seen under a real slurmd, 22.05).
DistEnv dist_env_from(const std::function<const char*(const char*)>& getenv_fn);

// The variable that carries a launcher's world size: SLURM_NTASKS,
// OMPI_COMM_WORLD_SIZE, or WORLD_SIZE (torchrun, a plain environment,
// ftbench's own launcher).
const char* world_size_variable(Launcher l);
// Under a launcher the world size is the count of ranks it started; a
// world_size asked for in the config (`--world-size N`, `world_size=N`; 0 =
// auto) that differs is a job script that disagrees with itself, refused on
// every rank before any work: InputError("SLURM_NTASKS: \"2\": slurm started
// 2 ranks, but world_size 3 was asked ...", naming world_size_variable).
// Nothing when not launched, when nothing was asked, or when they agree.
void check_world_size_asked(const DistEnv& env, int asked);

// Under an outside launcher, ranks of this node that would share one GPU
// (NCCL refuses them: "Duplicate GPU detected"): more local ranks than the
// `cuda_devices` a rank sees, unless each rank sees exactly one GPU through
// its own CUDA_VISIBLE_DEVICES (`cuda_visible_devices`, nullptr when unset).
// A one-line reason naming the fix, or "" when every rank has its own GPU
// (or the job is not launched: the local launcher places ranks itself).
std::string gpu_sharing_problem(const DistEnv& env, int cuda_devices, const char* cuda_visible_devices);

// NCCL's error-handling and watchdog modes. ProcessGroupNCCL reads them from
// the environment when it is made; ftbench sets one and records three:
//   TORCH_NCCL_ASYNC_ERROR_HANDLING  ftbench: 3 where the environment has
//       none (nor the older NCCL_ASYNC_ERROR_HANDLING). ProcessGroupNCCL.hpp's
//       ErrorHandlingMode: 1 TearDown, 2 CleanUpOnly, 3 SkipCleanUp, PyTorch
//       2.x's own default (the header: "make users use the default value (3 -
//       SkipCleanUp)"). 3, not 1: both end the process once a collective
//       passed the process group's timeout (dist_timeout_s), but 1 first calls
//       ncclCommAbort, which can itself hang on a hung peer (the header's
//       reason for 3); 2 keeps the process alive with its communicators aborted
//       and nothing to tell the row. Set explicitly so a LibTorch of another
//       default behaves the same. The rank's process dies (SIGABRT); ftbench's
//       launcher (or torchrun, srun...) sees it and the row ends failed naming
//       that rank.
//   TORCH_NCCL_BLOCKING_WAIT         recorded, never set: 1 makes every
//       wait() block the host until the collective is done (PyTorch warns of
//       its overhead), which would change what NCCL rows measure.
//   TORCH_NCCL_ENABLE_MONITORING     recorded, never set (PyTorch's
//       heartbeat monitor, a backstop when the watchdog itself is stuck).
//   TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC  1000: after a collective passes the
//       timeout, the watchdog waits up to 4 x this for the flight recorder's
//       dump before it ends the process (PyTorch's default 15000 ms: a hung
//       peer then ends after dist_timeout_s + 60 s). With 1000, the row ends
//       within dist_timeout_s + 4 s + the watchdog's poll and the launcher's
//       stop (tests/cli/nccl.sh's bound, docs/distributed.md).
//   TORCH_NCCL_DUMP_ON_TIMEOUT       recorded, never set (whether that dump
//       is taken at all).
// A value the environment gives wins and is recorded as the user's.
// Gloo needs none: its collectives throw on their own timeout.
inline constexpr const char* kNcclDumpWaitMs = "1000";
enum class SetBy { ftbench, user, unset };
const char* to_string(SetBy s);  // "ftbench" | "user" | "unset": the report's words
struct NcclMode {
  std::string value;  // "" when unset (PyTorch's default applies)
  SetBy set_by = SetBy::unset;
  bool operator==(const NcclMode& o) const { return value == o.value && set_by == o.set_by; }
};
using NcclModes = std::map<std::string, NcclMode>;  // by TORCH_NCCL_* name
// The modes a process group would run with, given the environment as the
// user left it (pure: the lookup is a parameter).
NcclModes nccl_error_modes(const std::function<const char*(const char*)>& getenv_fn);
// Once, at start-up, before any thread exists (main; setenv races getenv in
// other threads): in a launched rank of a world > 1 (RANK/WORLD_SIZE, Open
// MPI's or SLURM's variables) sets ftbench's values that the environment lacks
// through setenv_fn and remembers who set what; elsewhere it sets nothing (a
// process that only launches ranks, or a world of one, makes no NCCL group
// with a peer, and its report's environment stays as the user left it) and
// remembers the environment's own values (ftbench's recorded as unset).
void set_nccl_error_modes(const std::function<const char*(const char*)>& getenv_fn,
                          const std::function<void(const char*, const char*)>& setenv_fn);
// set_nccl_error_modes(std::getenv, setenv): what main calls.
void set_nccl_error_modes_in_environment();
// The modes this process's NCCL groups run with: what set_nccl_error_modes
// decided, or (never called) nccl_error_modes(std::getenv).
NcclModes nccl_error_modes_in_effect();

// dist_env_from(std::getenv).
DistEnv dist_env_from_environment();
// The launcher's variables, or, when none are set, a world of one whose store
// picks a free port (master_port 0): how a process that may or may not be a
// rank joins a process group.
DistEnv dist_env_or_world_of_one();

}  // namespace ftb
