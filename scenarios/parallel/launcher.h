// A torchrun-like launcher for one machine: starts `world_size` copies of a
// program as the ranks of one distributed run (RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT... in their environment, read back by scenarios/parallel/rank_env.h), watches
// them, and stops them all as soon as one fails, so a crashed rank never
// leaves the others hanging in a collective. POSIX/Linux only, torch-free.
//
// No process is left behind: the ranks share one new process group that is
// signalled as a whole (background children of a rank go with it), each rank
// gets PR_SET_PDEATHSIG=SIGKILL (dies with the launcher, even a SIGKILLed
// one), and SIGINT/SIGTERM sent to the launcher stop every rank. Limits: a
// rank's own children escape if they leave the process group (setsid) and
// the launcher is SIGKILLed; PDEATHSIG follows the *thread* that calls
// launch_ranks, which must not exit while it runs (it blocks, so it cannot).
// One launch at a time per process (the signal handlers are process-wide).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ftb {

struct LaunchOptions {
  std::string program;                     // executable to run for every rank (a path: no PATH search)
  std::vector<std::string> args;           // argv[1..]
  int world_size = 2;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;                     // 0 = a free port (the system's choice for port 0 on master_addr)
  int threads_per_rank = 1;                // exported as OMP_NUM_THREADS and FTB_THREADS
  std::map<std::string, std::string> env;  // extra variables for every rank (set last: they win)
  double grace_s = 5;                      // after a failure: SIGTERM the others, SIGKILL after grace_s
  double timeout_s = 0;                    // whole launch wall-clock limit, 0 = none
};

struct LaunchResult {
  // 0 when every rank exited 0; else the first failing rank's exit status, or
  // 128+signal when it was killed; 127 when the program could not be started;
  // 124 on timeout; 128+signal when the launcher was interrupted.
  int exit_code = 0;
  int failed_rank = -1;  // -1 when no rank failed (success, timeout, interrupt)
  // "" or one line, e.g. "rank 1 (pid 4242) was killed by signal 9 (SIGKILL)",
  // "rank 0 (pid 77) exited with status 3",
  // "timed out after 30 s (ranks still running: 0,1)".
  std::string failure;
  int master_port = 0;  // the port the ranks used
};

// The rendezvous port is held from the moment it is chosen: the launcher binds
// and listens on master_addr:master_port itself and rank 0 inherits that
// socket (its number in kListenFdVar), so no other process can take the port
// between the choice and rank 0's store (c10d's TCPStoreOptions::masterListenFd,
// the fix torchrun uses for the same race). Ranks that are not ftbench simply
// ignore the inherited descriptor.
inline constexpr const char* kListenFdVar = "FTB_MASTER_LISTEN_FD";

// Runs the ranks to completion (see the top of this file). Throws InputError
// for bad options or an unusable MASTER_ADDR/MASTER_PORT, std::system_error
// when the system refuses to create processes (after stopping those started).
LaunchResult launch_ranks(const LaunchOptions& o);

// Binds port 0 on `addr`, reads the port the system chose, closes it (so
// another process may take it before it is used: launch_ranks holds its
// port instead, see kListenFdVar). InputError("MASTER_ADDR: ...") when
// `addr` cannot be resolved or bound.
int pick_free_port(const std::string& addr);

// A socket bound to addr:port (port 0: one the system picks; a given port
// with SO_REUSEADDR, as c10d's TCPStore binds it) and listening; close-on-exec.
// Sets `bound_port`. InputError naming MASTER_PORT when the port is taken,
// MASTER_ADDR when the address is not one of this machine's.
int listen_on(const std::string& addr, int port, int* bound_port);

// InputError("MASTER_PORT: port N on ADDR is already in use ...") when
// addr:port cannot be bound (with SO_REUSEADDR, as c10d's TCPStore does, so a
// port in TIME_WAIT from a previous run counts as free).
void check_port_free(const std::string& addr, int port);

}  // namespace ftb
