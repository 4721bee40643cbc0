// DistEnv: the rank and rendezvous read from torchrun, Open MPI and SLURM
// variables, and the one-line errors that name the variable a job script got
// wrong. The environment is a map here; the real one is never touched.
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "scenarios/parallel/rank_env.h"
#include "core/base/errors.h"

namespace {

using Vars = std::map<std::string, std::string>;

ftb::DistEnv read(const Vars& vars) {
  return ftb::dist_env_from([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

// The InputError message, or "" when none was thrown.
std::string error_of(const Vars& vars) {
  try {
    read(vars);
  } catch (const ftb::InputError& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("dist_env: nothing set is one process, not launched") {
  const ftb::DistEnv e = read({});
  CHECK_FALSE(e.launched);
  CHECK(e.launcher == ftb::Launcher::none);
  CHECK(e.rank == 0);
  CHECK(e.world_size == 1);
  CHECK(e.local_rank == 0);
  CHECK(e.local_world_size == 1);
  CHECK(e.master_addr == "127.0.0.1");
  CHECK(e.master_port == 29500);
}

TEST_CASE("dist_env: RANK/WORLD_SIZE... (torchrun's names)") {
  const ftb::DistEnv e = read({{"RANK", "5"},
                               {"WORLD_SIZE", "8"},
                               {"LOCAL_RANK", "1"},
                               {"LOCAL_WORLD_SIZE", "4"},
                               {"MASTER_ADDR", "node0.cluster"},
                               {"MASTER_PORT", "12345"}});
  CHECK(e.launched);
  CHECK(e.launcher == ftb::Launcher::environment);
  CHECK(e.rank == 5);
  CHECK(e.world_size == 8);
  CHECK(e.local_rank == 1);
  CHECK(e.local_world_size == 4);
  CHECK(e.master_addr == "node0.cluster");
  CHECK(e.master_port == 12345);
}

// Who set RANK/WORLD_SIZE is recorded truly (the report's distributed.launcher).
// Fails on the old code, which called every RANK/WORLD_SIZE "torchrun": the
// plain environment and ftbench's own ranks would read as torchrun.
TEST_CASE("dist_env: the launcher of RANK/WORLD_SIZE: ftbench's, torchrun's agent, or a plain environment") {
  const Vars plain{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.1"}};
  CHECK(read(plain).launcher == ftb::Launcher::environment);
  // What torchrun's agent gives each worker besides RANK/WORLD_SIZE (2.x).
  Vars torchrun = plain;
  torchrun.insert({{"TORCHELASTIC_RUN_ID", "none"}, {"TORCHELASTIC_RESTART_COUNT", "0"}, {"GROUP_RANK", "1"},
                   {"GROUP_WORLD_SIZE", "2"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  CHECK(read(torchrun).launcher == ftb::Launcher::torchrun);
  // GROUP_RANK alone (ftbench's launcher sets it too) is not torchrun.
  Vars group = plain;
  group["GROUP_RANK"] = "0";
  CHECK(read(group).launcher == ftb::Launcher::environment);
  Vars own = plain;
  own[ftb::kOwnLauncherVar] = "1";
  CHECK(read(own).launcher == ftb::Launcher::ftbench);
  own["TORCHELASTIC_RUN_ID"] = "x";  // ftbench's mark wins: its ranks inherit a torchrun parent's variables
  CHECK(read(own).launcher == ftb::Launcher::ftbench);
  own[ftb::kOwnLauncherVar] = "0";
  CHECK(read(own).launcher == ftb::Launcher::torchrun);
  // The report's words, one per launcher.
  CHECK(std::string(ftb::to_string(ftb::Launcher::none)) == "none");
  CHECK(std::string(ftb::to_string(ftb::Launcher::ftbench)) == "ftbench");
  CHECK(std::string(ftb::to_string(ftb::Launcher::torchrun)) == "torchrun");
  CHECK(std::string(ftb::to_string(ftb::Launcher::environment)) == "environment");
  CHECK(std::string(ftb::to_string(ftb::Launcher::slurm)) == "slurm");
  CHECK(std::string(ftb::to_string(ftb::Launcher::openmpi)) == "openmpi");
}

TEST_CASE("dist_env: RANK/WORLD_SIZE defaults (local from global, rendezvous on this machine)") {
  const ftb::DistEnv e = read({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
  CHECK(e.launched);
  CHECK(e.launcher == ftb::Launcher::environment);
  CHECK(e.rank == 1);
  CHECK(e.world_size == 2);
  CHECK(e.local_rank == 1);
  CHECK(e.local_world_size == 2);
  CHECK(e.master_addr == "127.0.0.1");
  CHECK(e.master_port == 29500);
}

TEST_CASE("dist_env: torchrun wins over Open MPI and SLURM") {
  const ftb::DistEnv e = read({{"RANK", "0"},
                               {"WORLD_SIZE", "1"},
                               {"OMPI_COMM_WORLD_RANK", "3"},
                               {"OMPI_COMM_WORLD_SIZE", "4"},
                               {"SLURM_PROCID", "2"},
                               {"SLURM_NTASKS", "4"}});
  CHECK(e.launcher == ftb::Launcher::environment);
  CHECK(e.rank == 0);
  CHECK(e.world_size == 1);
}

TEST_CASE("dist_env: Open MPI mapping") {
  const ftb::DistEnv e = read({{"OMPI_COMM_WORLD_RANK", "3"},
                               {"OMPI_COMM_WORLD_SIZE", "4"},
                               {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                               {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                               {"MASTER_ADDR", "10.0.0.7"},
                               {"MASTER_PORT", "29400"},
                               {"SLURM_PROCID", "0"},
                               {"SLURM_NTASKS", "1"}});
  CHECK(e.launched);
  CHECK(e.launcher == ftb::Launcher::openmpi);
  CHECK(e.rank == 3);
  CHECK(e.world_size == 4);
  CHECK(e.local_rank == 1);
  CHECK(e.local_world_size == 2);
  CHECK(e.master_addr == "10.0.0.7");
  CHECK(e.master_port == 29400);
}

TEST_CASE("dist_env: SLURM mapping") {
  const ftb::DistEnv e = read({{"SLURM_PROCID", "6"},
                               {"SLURM_NTASKS", "8"},
                               {"SLURM_STEP_ID", "0"},
                               {"SLURM_LOCALID", "2"},
                               {"SLURM_NTASKS_PER_NODE", "4"},
                               {"SLURM_TASKS_PER_NODE", "5(x2)"},
                               {"MASTER_ADDR", "gpu-001"}});
  CHECK(e.launched);
  CHECK(e.launcher == ftb::Launcher::slurm);
  CHECK(e.rank == 6);
  CHECK(e.world_size == 8);
  CHECK(e.local_rank == 2);
  CHECK(e.local_world_size == 4);  // SLURM_NTASKS_PER_NODE first
  CHECK(e.master_addr == "gpu-001");
  CHECK(e.master_port == 29500);
}

TEST_CASE("dist_env: SLURM local size from SLURM_TASKS_PER_NODE") {
  Vars v{{"SLURM_PROCID", "9"}, {"SLURM_NTASKS", "10"}, {"SLURM_STEP_ID", "0"}, {"SLURM_LOCALID", "1"}, {"MASTER_ADDR", "gpu-001"}};
  v["SLURM_TASKS_PER_NODE"] = "4(x2),2";
  CHECK(read(v).local_world_size == 4);
  v["SLURM_TASKS_PER_NODE"] = "3";
  CHECK(read(v).local_world_size == 3);
  v["SLURM_TASKS_PER_NODE"] = "2,2,1";
  CHECK(read(v).local_world_size == 2);
  v.erase("SLURM_TASKS_PER_NODE");  // neither: one node
  CHECK(read(v).local_world_size == 10);
  v["SLURM_TASKS_PER_NODE"] = "(x2)";
  CHECK(starts_with(error_of(v), "SLURM_TASKS_PER_NODE: "));
  v["SLURM_TASKS_PER_NODE"] = "4x2";
  CHECK(starts_with(error_of(v), "SLURM_TASKS_PER_NODE: "));
}

TEST_CASE("dist_env: half a SLURM pair is one plain process (salloc shell, batch script)") {
  CHECK_FALSE(read({{"SLURM_NTASKS", "4"}}).launched);
  CHECK_FALSE(read({{"SLURM_PROCID", "0"}}).launched);
}

// Issue 35, found under a real slurmd (22.05): a batch script's own shell has
// SLURM_PROCID=0 and SLURM_NTASKS=2 (the job's tasks) but no step, and the
// old code took it for rank 0 of two ranks that nobody started: it waited
// at the rendezvous for dist_timeout_s. Fails on the old code (launched).
TEST_CASE("dist_env: a SLURM batch script's own shell is one plain process, srun's tasks (a step) are ranks") {
  Vars batch{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "4"}, {"MASTER_ADDR", "vm"}};
  const ftb::DistEnv e = read(batch);
  CHECK_FALSE(e.launched);
  CHECK(e.launcher == ftb::Launcher::none);
  CHECK(e.world_size == 1);
  Vars task = batch;
  task["SLURM_PROCID"] = "1";
  task["SLURM_STEP_ID"] = "0";
  CHECK(read(task).launched);
  CHECK(read(task).rank == 1);
  task.erase("SLURM_STEP_ID");
  task["SLURM_STEPID"] = "0";  // the older name
  CHECK(read(task).launched);
}

TEST_CASE("dist_env: a world_size asked for that the launcher disagrees with names the launcher's variable") {
  const ftb::DistEnv srun = read({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}, {"MASTER_ADDR", "vm"}});
  const auto error_asking = [](const ftb::DistEnv& e, int asked) -> std::string {
    try {
      ftb::check_world_size_asked(e, asked);
    } catch (const ftb::InputError& x) {
      return x.what();
    }
    return "";
  };
  CHECK(error_asking(srun, 0) == "");  // auto: the launcher's count
  CHECK(error_asking(srun, 2) == "");
  const std::string e = error_asking(srun, 3);
  CHECK(starts_with(e, "SLURM_NTASKS: \"2\": slurm started 2 ranks, but world_size 3 was asked"));
  CHECK(e.find("srun -n 3") != std::string::npos);
  const ftb::DistEnv mpi = read({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"MASTER_ADDR", "vm"}});
  CHECK(starts_with(error_asking(mpi, 4), "OMPI_COMM_WORLD_SIZE: "));
  CHECK(error_asking(mpi, 4).find("mpirun -np 4") != std::string::npos);
  CHECK(starts_with(error_asking(read({{"RANK", "0"}, {"WORLD_SIZE", "2"}}), 1), "WORLD_SIZE: "));
  CHECK(error_asking(read({}), 4) == "");  // not launched: ftbench starts the 4 itself
}

// Review of issue 28, P3-11: a plain RANK/WORLD_SIZE environment across nodes
// without MASTER_ADDR met at 127.0.0.1 and hung until dist_timeout_s. Fails
// on the old code: no error. One node (LOCAL_WORLD_SIZE = WORLD_SIZE, or unset)
// still needs none; torchrun's agent sets MASTER_ADDR itself.
TEST_CASE("dist_env: a multi-node plain environment without MASTER_ADDR says what to export") {
  const std::string e = error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"}});
  CHECK(starts_with(e, "MASTER_ADDR: "));
  CHECK(e.find("LOCAL_WORLD_SIZE=1") != std::string::npos);
  CHECK(e.find("export MASTER_ADDR") != std::string::npos);
  CHECK(error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}}).empty());
  CHECK(error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}}).empty());
  CHECK(error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"},
                  {"MASTER_ADDR", "10.0.0.1"}}).empty());
}

TEST_CASE("dist_env: one rank under mpirun or srun needs no MASTER_ADDR") {
  const ftb::DistEnv e = read({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_ID", "0"}});
  CHECK(e.launched);
  CHECK(e.master_addr == "127.0.0.1");
}

TEST_CASE("dist_env: multi-rank mpirun or srun without MASTER_ADDR says what to export") {
  const std::string slurm = error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}});
  CHECK(starts_with(slurm, "MASTER_ADDR: "));
  CHECK(slurm.find("srun") != std::string::npos);
  CHECK(slurm.find("export MASTER_ADDR") != std::string::npos);
  CHECK(slurm.find("scontrol show hostnames") != std::string::npos);
  const std::string mpi = error_of({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}});
  CHECK(starts_with(mpi, "MASTER_ADDR: "));
  CHECK(mpi.find("mpirun") != std::string::npos);
}

TEST_CASE("dist_env: half a pair names the missing variable") {
  CHECK(starts_with(error_of({{"RANK", "0"}}), "WORLD_SIZE: unset"));
  CHECK(starts_with(error_of({{"WORLD_SIZE", "2"}}), "RANK: unset"));
  CHECK(starts_with(error_of({{"OMPI_COMM_WORLD_RANK", "0"}}), "OMPI_COMM_WORLD_SIZE: unset"));
  CHECK(starts_with(error_of({{"OMPI_COMM_WORLD_SIZE", "2"}}), "OMPI_COMM_WORLD_RANK: unset"));
}

TEST_CASE("dist_env: malformed values throw InputError naming the variable and quoting the value") {
  const Vars ok{{"RANK", "1"},       {"WORLD_SIZE", "4"},          {"LOCAL_RANK", "1"},
                {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.1"}};  // two nodes: MASTER_ADDR needed
  struct Case {
    const char* variable;
    const char* value;
  };
  const Case cases[] = {
      {"RANK", "abc"},        {"RANK", "-1"},        {"RANK", ""},          {"RANK", " 1"},
      {"RANK", "1.0"},        {"RANK", "4"},         {"RANK", "99999999999"},
      {"WORLD_SIZE", "0"},    {"WORLD_SIZE", "x"},   {"WORLD_SIZE", "-2"},
      {"LOCAL_RANK", "2"},    {"LOCAL_RANK", "one"}, {"LOCAL_RANK", "-1"},
      {"LOCAL_WORLD_SIZE", "0"}, {"LOCAL_WORLD_SIZE", "5"},
      {"MASTER_PORT", "0"},   {"MASTER_PORT", "65536"}, {"MASTER_PORT", "-80"}, {"MASTER_PORT", "http"},
      {"MASTER_ADDR", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.variable);
    CAPTURE(c.value);
    Vars v = ok;
    v[c.variable] = c.value;
    const std::string msg = error_of(v);
    CHECK(starts_with(msg, std::string(c.variable) + ": "));
    if (*c.value) CHECK(msg.find(c.value) != std::string::npos);
  }
}

TEST_CASE("dist_env: malformed Open MPI and SLURM values name their own variables") {
  CHECK(starts_with(error_of({{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}}),
                    "OMPI_COMM_WORLD_RANK: \"4\""));
  CHECK(starts_with(error_of({{"OMPI_COMM_WORLD_RANK", "0"},
                              {"OMPI_COMM_WORLD_SIZE", "1"},
                              {"OMPI_COMM_WORLD_LOCAL_SIZE", "x"}}),
                    "OMPI_COMM_WORLD_LOCAL_SIZE: "));
  CHECK(starts_with(error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "zero"}, {"SLURM_STEP_ID", "0"}}), "SLURM_NTASKS: "));
  CHECK(starts_with(error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_ID", "0"}, {"SLURM_LOCALID", "1"}}),
                    "SLURM_LOCALID: "));
  CHECK(starts_with(error_of({{"SLURM_PROCID", "0"},
                              {"SLURM_NTASKS", "1"},
                              {"SLURM_STEP_ID", "0"},
                              {"SLURM_NTASKS_PER_NODE", "0"}}),
                    "SLURM_NTASKS_PER_NODE: "));
}

TEST_CASE("dist_env: an unset LOCAL_RANK that cannot default to RANK says so") {
  const std::string msg = error_of({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"}});
  CHECK(starts_with(msg, "LOCAL_RANK: unset"));
  CHECK(msg.find("LOCAL_WORLD_SIZE=4") != std::string::npos);
}

TEST_CASE("dist_env: MASTER_PORT is read even when not launched") {
  CHECK(read({{"MASTER_PORT", "40000"}}).master_port == 40000);
  CHECK(starts_with(error_of({{"MASTER_PORT", "x"}}), "MASTER_PORT: "));
}

TEST_CASE("dist_env: dist_env_from_environment reads the real environment") {
  // Set two variables for a moment, restoring whatever was there.
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  Saved saved[] = {{"RANK", false, ""}, {"WORLD_SIZE", false, ""}};
  for (Saved& s : saved)
    if (const char* v = std::getenv(s.name)) s.had = true, s.value = v;
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "3", 1);
  std::string error;
  ftb::DistEnv e;
  try {
    e = ftb::dist_env_from_environment();
  } catch (const ftb::InputError& x) {
    error = x.what();  // e.g. a malformed MASTER_PORT in the test runner's environment
  }
  for (const Saved& s : saved) {
    if (s.had) setenv(s.name, s.value.c_str(), 1);
    else unsetenv(s.name);
  }
  REQUIRE(error == "");
  CHECK(e.launcher == ftb::Launcher::environment);
  CHECK(e.rank == 1);
  CHECK(e.world_size == 3);
}

TEST_CASE("dist_env: launched ranks that would share a GPU are refused with the fix, one GPU each is fine") {
  ftb::DistEnv env;
  env.launched = true;
  env.launcher = ftb::Launcher::torchrun;
  env.world_size = env.local_world_size = 2;
  CHECK(ftb::gpu_sharing_problem(env, 2, nullptr).empty());          // one GPU per rank
  CHECK(ftb::gpu_sharing_problem(env, 1, "3").empty());              // each rank its own CUDA_VISIBLE_DEVICES
  const std::string shared = ftb::gpu_sharing_problem(env, 1, nullptr);
  CHECK(shared.find("2 ranks on this node (torchrun) but 1 GPU") == 0);
  CHECK(shared.find("--nproc-per-node 1") != std::string::npos);
  CHECK(shared.find('\n') == std::string::npos);
  CHECK_FALSE(ftb::gpu_sharing_problem(env, 1, "0,1").empty());      // both see two: not one each
  CHECK_FALSE(ftb::gpu_sharing_problem(env, 1, "").empty());
  env.local_world_size = 4;
  CHECK_FALSE(ftb::gpu_sharing_problem(env, 2, nullptr).empty());
  ftb::DistEnv local;  // the local launcher places its ranks itself
  local.world_size = local.local_world_size = 4;
  CHECK(ftb::gpu_sharing_problem(local, 1, nullptr).empty());
}

// NCCL's modes (docs/distributed.md, back ends; review of issue 28, P1-2 and
// P3-10): ftbench sets TORCH_NCCL_ASYNC_ERROR_HANDLING=3 (SkipCleanUp: the
// watchdog ends a rank's process after dist_timeout_s, the launcher fails
// the row naming it) and never TORCH_NCCL_BLOCKING_WAIT (it changes what
// NCCL rows measure); a user's value wins, under either of PyTorch's names,
// and the record says who set each. Set once, only in a rank of a world > 1.
// Fails on the old code: it set BLOCKING_WAIT=1, ASYNC_ERROR_HANDLING=2 and
// ENABLE_MONITORING=0, recorded no setter, and set them in every group.
TEST_CASE("dist_env: NCCL error-handling modes: ours where unset, the user's where set, recorded with who set it") {
  using ftb::SetBy;
  auto lookup = [](const Vars& vars) {
    return [&vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  const Vars none;
  const auto ours = ftb::nccl_error_modes(lookup(none));
  // The dump wait: PyTorch's 15000 ms default adds 4 x 15 s to a hung peer's end.
  CHECK(ours == ftb::NcclModes{{"TORCH_NCCL_ASYNC_ERROR_HANDLING", {"3", SetBy::ftbench}},
                               {"TORCH_NCCL_BLOCKING_WAIT", {"", SetBy::unset}},
                               {"TORCH_NCCL_DUMP_ON_TIMEOUT", {"", SetBy::unset}},
                               {"TORCH_NCCL_ENABLE_MONITORING", {"", SetBy::unset}},
                               {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", {"1000", SetBy::ftbench}}});
  const Vars theirs{{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"}, {"TORCH_NCCL_BLOCKING_WAIT", "1"},
                    {"TORCH_NCCL_ENABLE_MONITORING", ""}};
  const auto user = ftb::nccl_error_modes(lookup(theirs));
  CHECK(user.at("TORCH_NCCL_ASYNC_ERROR_HANDLING") == ftb::NcclMode{"1", SetBy::user});
  CHECK(user.at("TORCH_NCCL_BLOCKING_WAIT") == ftb::NcclMode{"1", SetBy::user});
  CHECK(user.at("TORCH_NCCL_ENABLE_MONITORING") == ftb::NcclMode{"", SetBy::unset});  // empty = unset
  const Vars older{{"NCCL_ASYNC_ERROR_HANDLING", "2"}};  // PyTorch still reads the old name
  CHECK(ftb::nccl_error_modes(lookup(older)).at("TORCH_NCCL_ASYNC_ERROR_HANDLING") == ftb::NcclMode{"2", SetBy::user});
  CHECK(std::string(ftb::to_string(SetBy::ftbench)) == "ftbench");
  CHECK(std::string(ftb::to_string(SetBy::user)) == "user");
  CHECK(std::string(ftb::to_string(SetBy::unset)) == "unset");

  // Set at start-up only in a rank of a world > 1, and only ftbench's own.
  auto set_in = [&](const Vars& vars) {
    Vars set;
    ftb::set_nccl_error_modes(lookup(vars), [&](const char* n, const char* v) { set[n] = v; });
    return set;
  };
  CHECK(set_in({}).empty());                                           // not launched
  CHECK(set_in({{"RANK", "0"}, {"WORLD_SIZE", "1"}}).empty());         // a world of one
  // A world of one records what it left alone as unset, not as ftbench's
  // (fails on the old code: it recorded ASYNC_ERROR_HANDLING=3 set by ftbench).
  CHECK(ftb::nccl_error_modes_in_effect().at("TORCH_NCCL_ASYNC_ERROR_HANDLING") == ftb::NcclMode{"", SetBy::unset});
  CHECK(ftb::nccl_error_modes_in_effect().at("TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC") == ftb::NcclMode{"", SetBy::unset});
  CHECK(set_in({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}) ==
        Vars{{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "3"}, {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", "1000"}});
  CHECK(ftb::nccl_error_modes_in_effect().at("TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC") == ftb::NcclMode{"1000", SetBy::ftbench});
  CHECK(set_in({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"},
                {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", "500"}})
            .empty());
  CHECK(set_in({{"RANK", "x"}, {"WORLD_SIZE", "2"}}).empty());         // malformed: the row's read says so
}
