// The local launcher on real processes (/bin/sh scripts as ranks): each rank's
// environment, the first failure stopping the others, SIGKILL after the grace
// period, timeouts, exec failures, ports, signal forwarding, and that no
// process (rank or a rank's background child) outlives a launch.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "scenarios/parallel/launcher.h"
#include "scenarios/parallel/rank_env.h"
#include "core/base/errors.h"
#include "tests/data_fixtures.h"

using ftb_test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

// Ranks run `script` under /bin/sh; $OUT is the test's temporary folder.
ftb::LaunchOptions sh(const std::string& script, const TempDir& dir, int world_size = 2) {
  ftb::LaunchOptions o;
  o.program = "/bin/sh";
  o.args = {"-c", script};
  o.world_size = world_size;
  o.env["OUT"] = dir.path.string();
  o.timeout_s = 20;  // a safety net: no test here should come near it
  return o;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

pid_t read_pid(const std::string& path) {
  std::ifstream f(path);
  long pid = 0;
  f >> pid;
  return static_cast<pid_t>(pid);
}

// Alive = exists and is not a zombie (an orphan's zombie can linger when the
// machine's init does not reap promptly).
bool alive(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0) return errno == EPERM;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(f, line);
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  return line[close + 2] != 'Z';
}

// True once `pid` is gone, waiting up to a second (orphans are reparented and
// reaped asynchronously).
bool gone_soon(pid_t pid) {
  for (int i = 0; i < 100 && alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !alive(pid);
}

std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Rank 1 waits until rank 0 has written its pid (and its background sleep's)
// before it fails, so the test knows which processes must be gone afterwards.
const char* kWaitForRank0 = "while [ ! -s \"$OUT/sleep0\" ]; do sleep 0.02; done; ";

}  // namespace

TEST_CASE("launcher: all ranks succeed and each sees its own environment") {
  TempDir dir("launch_env");
  ftb::LaunchOptions o = sh("env > \"$OUT/env.$RANK\"", dir, 3);
  o.threads_per_rank = 2;
  o.env["FTB_EXTRA"] = "hello world";
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  CHECK(r.exit_code == 0);
  CHECK(r.failed_rank == -1);
  CHECK(r.failure == "");
  CHECK(r.master_port > 0);
  CHECK(r.master_port <= 65535);
  for (int rank = 0; rank < 3; ++rank) {
    CAPTURE(rank);
    auto env = parse_env(slurp((dir.path / ("env." + std::to_string(rank))).string()));
    CHECK(env["RANK"] == std::to_string(rank));
    CHECK(env["LOCAL_RANK"] == std::to_string(rank));
    CHECK(env["WORLD_SIZE"] == "3");
    CHECK(env["LOCAL_WORLD_SIZE"] == "3");
    CHECK(env["GROUP_RANK"] == "0");
    CHECK(env["MASTER_ADDR"] == "127.0.0.1");
    CHECK(env["MASTER_PORT"] == std::to_string(r.master_port));
    CHECK(env["OMP_NUM_THREADS"] == "2");
    CHECK(env["FTB_THREADS"] == "2");
    CHECK(env["FTB_EXTRA"] == "hello world");
    CHECK(env.count("PATH") == 1);  // the parent's environment comes along
    // Its ranks say who started them (without the mark they would read as a
    // plain RANK/WORLD_SIZE environment: fails if the launcher stops setting it).
    CHECK(env[ftb::kOwnLauncherVar] == "1");
    const ftb::DistEnv read = ftb::dist_env_from([&](const char* name) -> const char* {
      const auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    });
    CHECK(read.launcher == ftb::Launcher::ftbench);
  }
}

TEST_CASE("launcher: a rank exiting 0 early does not stop the others") {
  TempDir dir("launch_early");
  const ftb::LaunchResult r =
      ftb::launch_ranks(sh("[ \"$RANK\" = 0 ] && exit 0; sleep 0.3; touch \"$OUT/late\"", dir));
  CHECK(r.exit_code == 0);
  CHECK(std::ifstream((dir.path / "late").string()).good());
}

TEST_CASE("launcher: a given master_port is used as is") {
  TempDir dir("launch_port");
  const int port = ftb::pick_free_port("127.0.0.1");
  ftb::LaunchOptions o = sh("echo \"$MASTER_PORT\" > \"$OUT/port.$RANK\"", dir);
  o.master_port = port;
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  CHECK(r.exit_code == 0);
  CHECK(r.master_port == port);
  CHECK(slurp((dir.path / "port.1").string()) == std::to_string(port) + "\n");
}

TEST_CASE("launcher: the first failing rank stops the others at once") {
  TempDir dir("launch_fail");
  const std::string script = std::string("if [ \"$RANK\" = 1 ]; then ") + kWaitForRank0 +
                             "exit 3; fi; "
                             "sleep 1000 & echo $! > \"$OUT/sleep0.tmp\"; echo $$ > \"$OUT/sh0\"; "
                             "mv \"$OUT/sleep0.tmp\" \"$OUT/sleep0\"; wait";
  const auto t0 = Clock::now();
  const ftb::LaunchResult r = ftb::launch_ranks(sh(script, dir));
  const double took = seconds_since(t0);
  CHECK(took < 4);
  CHECK(r.exit_code == 3);
  CHECK(r.failed_rank == 1);
  CHECK(contains(r.failure, "rank 1 (pid "));
  CHECK(contains(r.failure, "exited with status 3"));
  const pid_t sh0 = read_pid((dir.path / "sh0").string());
  const pid_t sleep0 = read_pid((dir.path / "sleep0").string());
  REQUIRE(sh0 > 0);
  REQUIRE(sleep0 > 0);
  CHECK(gone_soon(sh0));
  CHECK(gone_soon(sleep0));
}

TEST_CASE("launcher: a rank killed by a signal is reported with the signal's name") {
  TempDir dir("launch_kill");
  const ftb::LaunchResult r =
      ftb::launch_ranks(sh("if [ \"$RANK\" = 1 ]; then kill -9 $$; fi; sleep 1000", dir));
  CHECK(r.exit_code == 128 + 9);
  CHECK(r.failed_rank == 1);
  CHECK(contains(r.failure, "rank 1"));
  CHECK(contains(r.failure, "killed by signal 9 (SIGKILL)"));
}

TEST_CASE("launcher: a rank ignoring SIGTERM is SIGKILLed after the grace period") {
  TempDir dir("launch_grace");
  const std::string script = std::string("if [ \"$RANK\" = 1 ]; then ") + kWaitForRank0 +
                             "exit 1; fi; "
                             "trap '' TERM; sleep 1000 & echo $! > \"$OUT/sleep0.tmp\"; echo $$ > \"$OUT/sh0\"; "
                             "mv \"$OUT/sleep0.tmp\" \"$OUT/sleep0\"; wait";
  ftb::LaunchOptions o = sh(script, dir);
  o.grace_s = 0.5;
  const auto t0 = Clock::now();
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  const double took = seconds_since(t0);
  CHECK(took >= 0.5);
  CHECK(took < 4);
  CHECK(r.exit_code == 1);
  CHECK(r.failed_rank == 1);
  CHECK(gone_soon(read_pid((dir.path / "sh0").string())));
  CHECK(gone_soon(read_pid((dir.path / "sleep0").string())));
}

TEST_CASE("launcher: timeout_s stops every rank") {
  TempDir dir("launch_timeout");
  ftb::LaunchOptions o = sh("echo $$ > \"$OUT/sh.$RANK\"; sleep 1000", dir);
  o.timeout_s = 0.5;
  const auto t0 = Clock::now();
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  const double took = seconds_since(t0);
  CHECK(took >= 0.5);
  CHECK(took < 4);
  CHECK(r.exit_code == 124);
  CHECK(r.failed_rank == -1);
  CHECK(r.failure == "timed out after 0.5 s (ranks still running: 0,1)");
  for (const char* f : {"sh.0", "sh.1"}) {
    const pid_t pid = read_pid((dir.path / f).string());
    if (pid > 0) CHECK(gone_soon(pid));  // a rank may not have got to writing it
  }
}

TEST_CASE("launcher: a missing program exits 127 and says it could not start") {
  ftb::LaunchOptions o;
  o.program = "/nonexistent/ftb-no-such-program";
  o.grace_s = 1;
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  CHECK(r.exit_code == 127);
  CHECK(r.failed_rank == 0);
  CHECK(contains(r.failure, "rank 0"));
  CHECK(contains(r.failure, "could not start /nonexistent/ftb-no-such-program"));
  CHECK(contains(r.failure, "No such file or directory"));
}

TEST_CASE("launcher: a rank's background child does not outlive the launch") {
  TempDir dir("launch_orphan");
  ftb::LaunchOptions o = sh("if [ \"$RANK\" = 0 ]; then sleep 1000 & echo $! > \"$OUT/bg\"; fi; exit 0", dir);
  o.grace_s = 1;
  const auto t0 = Clock::now();
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  CHECK(seconds_since(t0) < 4);
  CHECK(r.exit_code == 0);
  CHECK(r.failure == "");
  const pid_t bg = read_pid((dir.path / "bg").string());
  REQUIRE(bg > 0);
  CHECK(gone_soon(bg));
}

TEST_CASE("launcher: SIGINT to the launcher stops the ranks and restores the handler") {
  TempDir dir("launch_sigint");
  // A handler of the test's own: the one to be restored, and a guard so a
  // stray SIGINT cannot end the test binary.
  struct sigaction mine {}, before {}, after {};
  mine.sa_handler = [](int) {};
  sigemptyset(&mine.sa_mask);
  sigaction(SIGINT, &mine, &before);

  ftb::LaunchOptions o = sh("echo $$ > \"$OUT/sh.$RANK.tmp\"; mv \"$OUT/sh.$RANK.tmp\" \"$OUT/sh.$RANK\"; sleep 1000",
                            dir);
  std::thread interrupter([&] {
    // Once both ranks run, launch_ranks is in its loop with its handler set.
    for (int i = 0; i < 500; ++i) {
      if (std::ifstream((dir.path / "sh.0").string()).good() && std::ifstream((dir.path / "sh.1").string()).good())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(getpid(), SIGINT);
  });
  const auto t0 = Clock::now();
  const ftb::LaunchResult r = ftb::launch_ranks(o);
  interrupter.join();
  CHECK(seconds_since(t0) < 4);
  CHECK(r.exit_code == 128 + SIGINT);
  CHECK(r.failed_rank == -1);
  CHECK(contains(r.failure, "interrupted by SIGINT"));
  CHECK(gone_soon(read_pid((dir.path / "sh.0").string())));
  CHECK(gone_soon(read_pid((dir.path / "sh.1").string())));

  sigaction(SIGINT, &before, &after);  // what launch_ranks left installed
  CHECK(bool(after.sa_handler == mine.sa_handler));
}

TEST_CASE("launcher: SIGCHLD and SIGTERM dispositions are restored") {
  struct sigaction chld_before {}, term_before {}, chld_after {}, term_after {};
  sigaction(SIGCHLD, nullptr, &chld_before);
  sigaction(SIGTERM, nullptr, &term_before);
  TempDir dir("launch_restore");
  CHECK(ftb::launch_ranks(sh("exit 0", dir)).exit_code == 0);
  sigaction(SIGCHLD, nullptr, &chld_after);
  sigaction(SIGTERM, nullptr, &term_after);
  CHECK(bool(chld_after.sa_handler == chld_before.sa_handler));
  CHECK(bool(term_after.sa_handler == term_before.sa_handler));
}

TEST_CASE("launcher: bad options are InputErrors") {
  ftb::LaunchOptions o;
  CHECK_THROWS_AS(ftb::launch_ranks(o), ftb::InputError);  // no program
  o.program = "/bin/true";
  o.world_size = 0;
  CHECK_THROWS_AS(ftb::launch_ranks(o), ftb::InputError);
  o.world_size = 1;
  o.master_port = 70000;
  CHECK_THROWS_WITH_AS(ftb::launch_ranks(o), doctest::Contains("MASTER_PORT: "), ftb::InputError);
  o.master_port = 0;
  o.master_addr = "192.0.2.1";  // TEST-NET-1: not an address of this machine
  CHECK_THROWS_WITH_AS(ftb::launch_ranks(o), doctest::Contains("MASTER_ADDR: "), ftb::InputError);
}

TEST_CASE("launcher: pick_free_port returns a port that can be bound") {
  const int port = ftb::pick_free_port("127.0.0.1");
  REQUIRE(port > 0);
  REQUIRE(port <= 65535);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  close(fd);
  CHECK_NOTHROW(ftb::check_port_free("127.0.0.1", port));
}

TEST_CASE("launcher: check_port_free names MASTER_PORT when the port is taken") {
  // Hold a listening socket on a free port, as a running rendezvous would.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(listen(fd, 1) == 0);
  socklen_t len = sizeof a;
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  const int port = ntohs(a.sin_port);

  std::string msg;
  try {
    ftb::check_port_free("127.0.0.1", port);
  } catch (const ftb::InputError& e) {
    msg = e.what();
  }
  CHECK(msg.rfind("MASTER_PORT: port " + std::to_string(port) + " on 127.0.0.1 is already in use", 0) == 0);

  ftb::LaunchOptions o;
  o.program = "/bin/true";
  o.master_port = port;
  CHECK_THROWS_WITH_AS(ftb::launch_ranks(o), doctest::Contains("already in use"), ftb::InputError);
  close(fd);
}

namespace {
std::size_t open_fds() {
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd"); it != std::filesystem::directory_iterator(); ++it) ++n;
  return n;
}
}  // namespace

TEST_CASE("launcher: rank 0 inherits the listening socket") {
  // The port is never free between the launcher's choice and rank 0's store:
  // the launcher listens on it and rank 0 inherits that socket (the others
  // do not); while rank 0 lives, the port is listening (/proc/net/tcp state
  // 0A), and the launcher keeps no copy after the launch.
  TempDir dir("launch_listen_fd");
  const std::size_t fds_before = open_fds();
  const ftb::LaunchResult r = ftb::launch_ranks(
      sh("if [ \"$RANK\" = 0 ]; then readlink \"/proc/$$/fd/$FTB_MASTER_LISTEN_FD\" > \"$OUT/fd.0\"; sleep 1; "
         "else echo \"${FTB_MASTER_LISTEN_FD:-none}\" > \"$OUT/fd.1\"; "
         "grep -qi \":$(printf %04X \"$MASTER_PORT\") 00000000:0000 0A\" /proc/net/tcp && touch \"$OUT/listening\"; fi",
         dir));
  CHECK(r.exit_code == 0);
  CHECK(slurp((dir.path / "fd.0").string()).rfind("socket:[", 0) == 0);
  CHECK(slurp((dir.path / "fd.1").string()) == "none\n");
  CHECK(std::ifstream((dir.path / "listening").string()).good());
  CHECK(open_fds() == fds_before);
}
