#include "bench/duet_pair.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/files.h"
#include "core/base/subprocess.h"

namespace ftb {
namespace {

using Clock = std::chrono::steady_clock;

double side_seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The steal column of /proc/stat's "cpu" line, in seconds; -1 unknown.
double steal_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  long long user, nice, system, idle, iowait, irq, softirq, steal;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu") return -1;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  return ticks > 0 ? static_cast<double>(steal) / static_cast<double>(ticks) : -1;
}

double loadavg() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  in >> one;
  return in ? one : -1;
}

int exit_code_of(const Finished& f) {
  if (!f.started) return 127;
  if (f.timed_out) return 124;
  if (WIFSIGNALED(f.status)) return 128 + WTERMSIG(f.status);
  return WIFEXITED(f.status) ? WEXITSTATUS(f.status) : 1;
}

cpu_set_t cpu_set_of(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores) CPU_SET(c, &set);
  return set;
}

// On the calling thread: pin it to the side's cores (the child inherits the
// mask), run the side, keep its console output beside its folder; `pid`
// holds the side's process id while it runs (0 before and after).
void run_side(const DuetSide& side, SideRun& run, double timeout_s, std::atomic<int>* pid = nullptr) {
  const cpu_set_t set = cpu_set_of(run.cores);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) {
    run.exit_code = 127;
    write_file_atomic(run.out + ".log", "duet: cannot pin to the side's cores\n");
    return;
  }
  std::vector<std::string> env = side.env;
  if (!run.gpus.empty()) {
    std::string ids;
    for (int g : run.gpus) ids += (ids.empty() ? "" : ",") + std::to_string(g);
    env.push_back("CUDA_VISIBLE_DEVICES=" + ids);
  }
  std::vector<std::string> argv;
  if (!env.empty()) {
    argv.push_back("/usr/bin/env");
    argv.insert(argv.end(), env.begin(), env.end());
  }
  argv.insert(argv.end(), {side.executable, "run", "--out", run.out});
  argv.insert(argv.end(), side.args.begin(), side.args.end());
  const auto t0 = Clock::now();
  const Finished f = run_captured(argv, timeout_s, [pid](int p) {
    if (pid) pid->store(p);
  });
  run.seconds = side_seconds_since(t0);
  run.exit_code = exit_code_of(f);
  write_file_atomic(run.out + ".log", f.out + f.err + (f.spawn_error.empty() ? "" : f.spawn_error + "\n"));
}

// Pins every thread of process `pid` (/proc/PID/task) to `cores`; a process
// already gone pins nothing.
void pin_process(int pid, const std::vector<int>& cores) {
  const cpu_set_t set = cpu_set_of(cores);
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    int tid = 0;
    try {
      tid = std::stoi(task.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    ::sched_setaffinity(tid, sizeof set, &set);  // fails only for a thread that just ended: nothing to pin
  }
}

// While both sides run, every rotate_s seconds: each side onto the other's
// cores (a trade counts only when both pids are known: never both sides on
// one core set). Stops, and joins its thread, when destroyed.
class Rotator {
 public:
  Rotator(PairRun& pair, std::atomic<int>& pid_a, std::atomic<int>& pid_b)
      : pair_(pair), pid_a_(pid_a), pid_b_(pid_b), thread_([this] { loop(); }) {}
  ~Rotator() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop() {
    bool traded = false;
    std::unique_lock<std::mutex> lock(m_);
    const auto period = std::chrono::duration<double>(pair_.rotate_s);
    while (!cv_.wait_for(lock, period, [this] { return done_; })) {
      const int a = pid_a_.load(), b = pid_b_.load();
      if (a <= 0 || b <= 0) continue;  // one side not started yet, or ended: nothing to trade
      traded = !traded;
      pin_process(a, traded ? pair_.b.cores : pair_.a.cores);
      pin_process(b, traded ? pair_.a.cores : pair_.b.cores);
      ++pair_.rotations;
    }
  }
  PairRun& pair_;
  std::atomic<int>& pid_a_;
  std::atomic<int>& pid_b_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

std::vector<int> available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

PairRun run_pair(const DuetSide& a_side, const DuetSide& b_side, PairRun pair, double timeout_s) {
  pair.loadavg_before = loadavg();
  const double steal0 = steal_seconds();
  const auto t0 = Clock::now();
  if (pair.together) {
    // Two threads, each pinned before it starts its side: the sides start
    // within a thread start of each other.
    std::atomic<int> pid_a{0}, pid_b{0};
    std::thread ta([&] { run_side(a_side, pair.a, timeout_s, &pid_a); });
    std::thread tb([&] { run_side(b_side, pair.b, timeout_s, &pid_b); });
    {
      std::unique_ptr<Rotator> rotator;
      if (pair.rotate_s > 0) rotator = std::make_unique<Rotator>(pair, pid_a, pid_b);
      ta.join();
      tb.join();
    }
  } else {
    // A thread for the pinning, so this thread's mask stays as it was.
    std::thread t([&] {
      if (pair.first == 'a') {
        run_side(a_side, pair.a, timeout_s);
        run_side(b_side, pair.b, timeout_s);
      } else {
        run_side(b_side, pair.b, timeout_s);
        run_side(a_side, pair.a, timeout_s);
      }
    });
    t.join();
  }
  pair.seconds = side_seconds_since(t0);
  const double steal1 = steal_seconds();
  pair.steal_s = steal0 >= 0 && steal1 >= 0 ? steal1 - steal0 : -1;
  pair.loadavg_after = loadavg();
  return pair;
}

}  // namespace ftb
