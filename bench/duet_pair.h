// One pair of a duet (bench/cmd_duet.cpp): both sides' `ftbench run` started
// together, each pinned to its own cores (the thread that starts a side pins
// itself first, and the child inherits its CPU mask), or in the sequential
// mode one after the other on the same cores. With rotate_s the sides trade
// cores every rotate_s seconds while both run (every thread of each side's
// process re-pinned at once), so a core that is slower for a while (a
// neighbour on its host core) slows both sides alike instead of one. What
// the machine did beside the pair is read around it: the steal time the
// hypervisor took and the load average, so a noisy pair is seen, not
// guessed at.
#pragma once

#include <string>
#include <vector>

namespace ftb {

struct DuetSide {
  std::string executable;          // an ftbench (a path)
  std::vector<std::string> args;   // after `run --out DIR`
  std::vector<std::string> env;    // KEY=VALUE for this side only (through /usr/bin/env)
  std::string executable_hash;     // FNV-1a 64 of its bytes: names the build wherever it is kept
};

struct SideRun {
  std::vector<int> cores;
  std::vector<int> gpus;  // CUDA_VISIBLE_DEVICES for this side (empty: not set, a CPU side)
  std::string out;      // the side's --out folder
  int exit_code = 0;    // 127: could not start; 124: timed out; 128+N: killed by signal N
  double seconds = 0;
};

struct PairRun {
  bool together = true;  // duet; false: sequential (first `first`, then the other)
  char first = 'a';
  SideRun a, b;
  double seconds = 0;    // the pair's wall time
  double steal_s = 0;    // CPU time the hypervisor took from this machine meanwhile (/proc/stat), all CPUs
  double loadavg_before = -1, loadavg_after = -1;  // 1-minute load average (/proc/loadavg); -1 unknown
  double rotate_s = 0;  // together: the sides trade cores this often while both run; 0 = each keeps its own
  int rotations = 0;    // trades done (a side's cores above are where it started)
};

// The CPUs this process may run on (sched_getaffinity), in order.
std::vector<int> available_cpus();

// Runs one pair: a on a.cores, b on b.cores (set by the caller), each
// `executable run --out <out> args...` with its output in <out>.log; each
// side stopped after timeout_s; together with rotate_s > 0, trading cores
// (the side process's own threads; processes a side starts keep the mask
// they started with). Returns when both have ended.
PairRun run_pair(const DuetSide& a_side, const DuetSide& b_side, PairRun pair, double timeout_s);

}  // namespace ftb
