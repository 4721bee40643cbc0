// The local multi-process launcher (see launcher.h). fork + execve per rank
// into one process group; a self-pipe woken by SIGCHLD/SIGINT/SIGTERM lets the
// parent notice the first failing rank at once (not after a polling period),
// which matters because its peers fail moments later with connection errors
// and the report must name the rank that failed first.
#include "scenarios/parallel/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "core/base/errors.h"
#include "core/base/interrupt.h"
#include "scenarios/parallel/rank_env.h"

extern char** environ;

namespace ftb {
namespace {

using Clock = std::chrono::steady_clock;

std::system_error sys_error(int err, const std::string& what) {
  return std::system_error(err, std::generic_category(), "launcher: " + what);
}

// A time limit in seconds as a clock duration (capped at ~30 years: no overflow).
Clock::duration after_seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(s, 1e9)));
}

std::string seconds(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGINT: return "SIGINT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    default: return strsignal(sig);
  }
}

// ---- Signals --------------------------------------------------------------
// The handlers only record and write one byte to the self-pipe; the loops of
// a launch (start_ranks, watch_ranks, Launch::stop) do the work.
// Process-wide state, hence one launch at a time.

volatile sig_atomic_t g_interrupt = 0;   // the last SIGINT/SIGTERM received
volatile sig_atomic_t g_interrupts = 0;  // how many (a second one skips the grace period)
volatile sig_atomic_t g_wake_fd = -1;    // write end of the self-pipe
std::atomic<bool> g_launching{false};

extern "C" void on_signal(int sig) {
  const int saved_errno = errno;
  if (sig == SIGINT || sig == SIGTERM) {
    g_interrupt = sig;
    g_interrupts = g_interrupts + 1;
    record_interrupt(sig);  // the run's flag (core/base/interrupt.h): the sweep stops after this row
  }
  const int fd = g_wake_fd;
  if (fd >= 0) {
    const char byte = 0;
    const ssize_t n = write(fd, &byte, 1);  // full pipe: a wake-up is already pending
    (void)n;
  }
  errno = saved_errno;
}

// Installs the handlers for one launch; restores the previous ones (and frees
// the launch slot) when it goes out of scope, whichever way launch_ranks ends.
class SignalScope {
 public:
  SignalScope() {
    if (g_launching.exchange(true)) throw std::logic_error("launch_ranks: another launch is running in this process");
    if (pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
      const int err = errno;
      g_launching = false;
      throw sys_error(err, "pipe");
    }
    g_interrupt = 0;
    g_interrupts = 0;
    g_wake_fd = pipe_[1];
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < kCount; ++i) {
      // SIGCHLD: no wake-ups for stopped children. A handler (not SIG_IGN)
      // also keeps exited ranks as zombies for waitpid.
      sa.sa_flags = SA_RESTART | (kSignals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
      sigaction(kSignals[i], &sa, &old_[i]);
    }
  }
  ~SignalScope() {
    for (int i = 0; i < kCount; ++i) sigaction(kSignals[i], &old_[i], nullptr);
    g_wake_fd = -1;
    close(pipe_[0]);
    close(pipe_[1]);
    g_launching = false;
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  // Sleeps until a signal arrives or `limit` passes, then drains the pipe.
  void wait(Clock::duration limit) const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit).count();
    pollfd p{pipe_[0], POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::clamp<long long>(ms, 1, 100)));  // 100 ms: a safety net only
    char buf[64];
    while (read(pipe_[0], buf, sizeof buf) > 0) {
    }
  }

 private:
  static constexpr int kCount = 3;
  static constexpr int kSignals[kCount] = {SIGINT, SIGTERM, SIGCHLD};
  int pipe_[2] = {-1, -1};
  struct sigaction old_[kCount] {};
};

// ---- Children -------------------------------------------------------------

// Whether process group `pgid` has a member that is not a zombie. kill(-pgid,
// 0) alone counts zombies: a rank's background child, killed with the group,
// is an orphan that init reaps when it gets to it (seconds, in some
// containers), and waiting for that would stretch every launch to grace_s.
bool group_alive(pid_t pgid) {
  if (kill(-pgid, 0) != 0) return errno == EPERM;  // ESRCH: nobody left
  DIR* proc = opendir("/proc");
  if (!proc) return true;
  bool alive = false;
  while (const dirent* d = readdir(proc)) {
    if (d->d_name[0] < '1' || d->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + d->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;  // gone meanwhile
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (!(rest >> state >> ppid >> pgrp)) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  closedir(proc);
  return alive;
}

struct Child {
  pid_t pid = -1;
  bool running = false;
};

struct Launch {
  std::vector<Child> kids;
  pid_t pgid = 0;  // the ranks' process group (rank 0's pid); 0 before it exists
  LaunchResult result;

  bool failed() const { return !result.failure.empty(); }
  bool any_running() const {
    return std::any_of(kids.begin(), kids.end(), [](const Child& c) { return c.running; });
  }
  // Something of the launch still alive: a rank, or anything left in its group.
  bool leftovers() const { return any_running() || (pgid > 0 && group_alive(pgid)); }

  void fail(int rank, int exit_code, const std::string& line) {
    if (failed()) return;  // only the first failure is reported
    result.failed_rank = rank;
    result.exit_code = exit_code;
    result.failure = line;
  }

  // Collects the ranks that ended; `record`: the first failure becomes the result.
  void reap(bool record) {
    for (std::size_t r = 0; r < kids.size(); ++r) {
      Child& c = kids[r];
      if (!c.running) continue;
      int st = 0;
      const pid_t w = waitpid(c.pid, &st, WNOHANG);
      if (w == 0 || (w < 0 && errno == EINTR)) continue;
      c.running = false;
      if (!record) continue;
      const std::string who = "rank " + std::to_string(r) + " (pid " + std::to_string(c.pid) + ")";
      if (w < 0) {
        fail(static_cast<int>(r), 1, who + " was reaped elsewhere in this process; its exit status is unknown");
      } else if (WIFSIGNALED(st)) {
        const int sig = WTERMSIG(st);
        fail(static_cast<int>(r), 128 + sig,
             who + " was killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")" +
                 (WCOREDUMP(st) ? ", core dumped" : ""));
      } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        fail(static_cast<int>(r), WEXITSTATUS(st), who + " exited with status " + std::to_string(WEXITSTATUS(st)));
      }
    }
  }

  void signal_all(int sig) const {
    if (pgid > 0) kill(-pgid, sig);
    for (const Child& c : kids)  // a rank that left the group still gets it
      if (c.running) kill(c.pid, sig);
  }

  // Ends whatever is left: SIGTERM, then SIGKILL after `grace_s` (or at once
  // on a second SIGINT/SIGTERM), then reaps every rank. Returns at once when
  // nothing is left.
  void stop(double grace_s, const SignalScope& sig) {
    reap(false);
    if (!leftovers()) return;
    signal_all(SIGTERM);
    const int interrupts = g_interrupts;
    const auto deadline = Clock::now() + after_seconds(grace_s);
    for (;;) {
      reap(false);
      if (!leftovers()) return;
      const auto now = Clock::now();
      if (now >= deadline || g_interrupts != interrupts) break;
      sig.wait(deadline - now);
    }
    signal_all(SIGKILL);
    for (Child& c : kids) {
      if (!c.running) continue;
      int st = 0;
      while (waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
      }
      c.running = false;
    }
  }
};

// The rank's environment: the parent's, then the launcher's variables, then
// the caller's extra ones (which win).
std::vector<std::string> rank_environment(const LaunchOptions& o, int port, int rank, int listen_fd) {
  std::map<std::string, std::string> set = {
      {"RANK", std::to_string(rank)},
      {"LOCAL_RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(o.world_size)},
      {"LOCAL_WORLD_SIZE", std::to_string(o.world_size)},
      {"GROUP_RANK", "0"},
      {"MASTER_ADDR", o.master_addr},
      {"MASTER_PORT", std::to_string(port)},
      {"OMP_NUM_THREADS", std::to_string(o.threads_per_rank)},
      {"FTB_THREADS", std::to_string(o.threads_per_rank)},
      {kOwnLauncherVar, "1"},  // the report's launcher: ftbench, not a plain RANK/WORLD_SIZE
  };
  if (listen_fd >= 0) set[kListenFdVar] = std::to_string(listen_fd);
  for (const auto& [k, v] : o.env) set[k] = v;
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (!set.count(kv.substr(0, kv.find('=')))) out.push_back(kv);
  }
  for (const auto& [k, v] : set) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Forks one rank into process group `pgid` (0: a new group led by the rank)
// and execs it; `inherit_fd` (-1: none) stays open across exec. Returns its
// pid; `exec_errno` is exec's errno when the program could not be started
// (the child then exits 127), else 0.
pid_t spawn(const char* program, char* const* argv, char* const* envp, pid_t pgid, const std::string& err_prefix,
            int inherit_fd, int& exec_errno) {
  int status_pipe[2];  // close-on-exec: EOF = exec succeeded, an int = its errno
  if (pipe2(status_pipe, O_CLOEXEC) != 0) throw sys_error(errno, "pipe");
  // All signals blocked across fork: the child must not run the parent's
  // handlers before it resets them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: async-signal-safe calls only until execve.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, nullptr);
    sigaction(SIGTERM, &dfl, nullptr);
    sigaction(SIGCHLD, &dfl, nullptr);
    setpgid(0, pgid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the launcher died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (inherit_fd >= 0) fcntl(inherit_fd, F_SETFD, 0);  // clears FD_CLOEXEC in this child only
    execve(program, argv, envp);
    const int err = errno;
    ssize_t n = write(status_pipe[1], &err, sizeof err);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char* text = strerrordesc_np(err);  // no locale, no allocation
#else
    const char* text = strerror(err);
#endif
    n = write(STDERR_FILENO, err_prefix.data(), err_prefix.size());
    if (text) n = write(STDERR_FILENO, text, strlen(text));
    n = write(STDERR_FILENO, "\n", 1);
    (void)n;
    _exit(127);
  }
  const int fork_errno = errno;
  if (pid > 0) setpgid(pid, pgid == 0 ? pid : pgid);  // both sides set it: no race with a group kill
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(status_pipe[1]);
  if (pid < 0) {
    close(status_pipe[0]);
    throw sys_error(fork_errno, "fork");
  }
  int err = 0;
  ssize_t n;
  do {
    n = read(status_pipe[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  close(status_pipe[0]);
  exec_errno = n == static_cast<ssize_t>(sizeof err) ? err : 0;
  return pid;
}

// Throws InputError for options no launch can run with, before anything starts.
void check_options(const LaunchOptions& o) {
  if (o.program.empty()) input_error("program", "is empty");
  if (o.world_size < 1) input_error("world_size", "must be at least 1, got " + std::to_string(o.world_size));
  if (o.threads_per_rank < 1)
    input_error("threads_per_rank", "must be at least 1, got " + std::to_string(o.threads_per_rank));
  if (!(o.grace_s >= 0)) input_error("grace_s", "must be >= 0, got " + seconds(o.grace_s));
  if (!(o.timeout_s >= 0)) input_error("timeout_s", "must be >= 0 (0 = no limit), got " + seconds(o.timeout_s));
  for (const auto& [k, v] : o.env)
    if (k.empty() || k.find('=') != std::string::npos) input_error("env", "bad variable name \"" + k + "\"");
}

// Records the SIGINT/SIGTERM the launcher received as the launch's failure.
void fail_interrupted(Launch& l) {
  const int s = g_interrupt;
  l.fail(-1, 128 + s, "interrupted by " + signal_name(s) + " (signal " + std::to_string(s) + "); stopped all ranks");
}

// Starts the ranks in order, rank 0 inheriting `listen_fd`; stops early at
// an interrupt or at the first rank that could not be started.
void start_ranks(const LaunchOptions& o, const std::vector<char*>& argv, int listen_fd, Launch& l) {
  for (int r = 0; r < o.world_size && !l.failed(); ++r) {
    if (g_interrupt) {
      fail_interrupted(l);
      break;
    }
    const int inherit = r == 0 ? listen_fd : -1;
    std::vector<std::string> env_s = rank_environment(o, l.result.master_port, r, inherit);
    std::vector<char*> envp = c_strings(env_s);
    const std::string prefix = "launcher: rank " + std::to_string(r) + ": cannot execute " + o.program + ": ";
    int exec_errno = 0;
    Child& c = l.kids[r];
    c.pid = spawn(o.program.c_str(), argv.data(), envp.data(), l.pgid, prefix, inherit, exec_errno);
    c.running = true;
    if (l.pgid == 0) l.pgid = c.pid;
    if (exec_errno)
      l.fail(r, 127, "rank " + std::to_string(r) + " (pid " + std::to_string(c.pid) + ") could not start " +
                         o.program + ": " + std::strerror(exec_errno) + " (exit status 127)");
  }
}

// Waits until every rank has ended, one fails, the launcher is interrupted
// or `deadline` passes (each of the last three recorded as the failure).
void watch_ranks(const LaunchOptions& o, Clock::time_point deadline, const SignalScope& sig, Launch& l) {
  while (!l.failed() && l.any_running()) {
    l.reap(true);
    if (l.failed() || !l.any_running()) break;
    if (g_interrupt) {
      fail_interrupted(l);
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      std::string still;
      for (std::size_t r = 0; r < l.kids.size(); ++r)
        if (l.kids[r].running) still += (still.empty() ? "" : ",") + std::to_string(r);
      l.fail(-1, 124, "timed out after " + seconds(o.timeout_s) + " s (ranks still running: " + still + ")");
      break;
    }
    sig.wait(deadline - now);
  }
}

}  // namespace

LaunchResult launch_ranks(const LaunchOptions& o) {
  check_options(o);

  Launch l;
  // Held until every rank is started; rank 0 inherits it (kListenFdVar).
  struct Fd {
    int fd = -1;
    ~Fd() { reset(); }
    void reset() {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  } listening;
  listening.fd = listen_on(o.master_addr, o.master_port, &l.result.master_port);

  std::vector<std::string> argv_s{o.program};
  argv_s.insert(argv_s.end(), o.args.begin(), o.args.end());
  std::vector<char*> argv = c_strings(argv_s);

  SignalScope sig;
  const auto start = Clock::now();
  const auto deadline = o.timeout_s > 0 ? start + after_seconds(o.timeout_s) : Clock::time_point::max();
  l.kids.resize(o.world_size);

  try {
    start_ranks(o, argv, listening.fd, l);
    listening.reset();  // rank 0 has its copy
    watch_ranks(o, deadline, sig, l);
  } catch (...) {
    l.stop(o.grace_s, sig);
    throw;
  }
  // After a failure: the other ranks. After success: anything a rank left in
  // the background. Returns at once when nothing is left.
  l.stop(o.grace_s, sig);
  return l.result;
}

}  // namespace ftb
