// Issue 29: the profiling pass on a row of ranks. ddp on 2 ranks as threads
// of this process (tests/rank_threads.h), rank 0's steps under the profiler
// as the rank protocol profiles them (scenarios/parallel/rank_protocol.cpp).
// In ftb_dist_tests, which holds ctest's `ports` lock: run_ranks opens a
// TCPStore on a port picked free, which another suite under `ctest -j` could
// take before it binds (it was in ftb_tests, which holds no lock).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "core/measure/op_profiler.h"
#include "core/train/workload.h"
#include "reports/analysis/profile.h"
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/profile_pass.h"
#include "tests/rank_threads.h"
#include "tests/skip.h"
#include "tests/tiny_config.h"

namespace {

struct RanksProfile {
  bool finished = false;
  ftb::OpProfile profile;
};

// Rank 0's profile of ddp's steps on 2 ranks (rank 1 runs unprofiled).
RanksProfile profile_ddp_on_two_ranks() {
  auto config = profiled_config();
  config.world_size = 2;
  const auto workload = ftb::build_workload(config);
  const ftb::RunConfig c = ftb::profile_pass_config(config);
  RanksProfile out;
  ftb_test::run_ranks(2, [&](const ftb::DistEnv& e) {
    if (e.rank != 0) {
      ftb::run_data_parallel(workload, c, {}, ftb::dist::Sharding::none, e);
      return;
    }
    ftb::ProfileRequest request;
    request.first_step = c.warmup_steps + 1;
    request.steps = c.profile;
    ftb::StepProfiler profiler(request);
    ftb::ActiveStepProfiler active(&profiler);
    ftb::run_data_parallel(workload, c, {}, ftb::dist::Sharding::none, e);
    out.finished = profiler.finished();
    if (out.finished) out.profile = profiler.profile();
  });
  return out;
}

}  // namespace

// Before the coverage work the gradient hooks' bodies and the waits on Gloo
// work were host time in no operator; now the hook
// (ftb::dist::grad_ready_hook) and every wait (c10d::wait) and collective
// issue (c10d::allreduce_) are operators, in the communication category.
// Runs under any load. Fails on the code before 9e10dc4: no such operators,
// no communication time.
TEST_CASE("profile pass: ddp on 2 ranks, the hooks and waits are communication operators") {
  const RanksProfile r = profile_ddp_on_two_ranks();
  REQUIRE(r.finished);
  const ftb::OpProfile& p = r.profile;
  REQUIRE(p.steps == 2);
  std::set<std::string> names;
  for (const auto& o : p.host) names.insert(o.name);
  CHECK(names.count("ftb::dist::grad_ready_hook") == 1);
  CHECK(names.count("c10d::wait") == 1);
  CHECK(names.count("c10d::allreduce_") == 1);
  double communication = 0;
  for (const auto& t : ftb::profile_categories(p, false))
    if (t.category == ftb::OpCategory::communication) communication = t.share;
  CHECK(communication > 0);
  CHECK(p.host_ops_s <= p.wall_s * 1.001);  // one thread's operators, nothing counted twice
}

// Operators cover at least 90 % of the profiled steps' wall time (the
// issue's bound), checked only on a quiet machine: where the stepping thread
// waited for a CPU (cpu_wait_s, the kernel's run delay) more than 5 % of the
// wall time, the case skips. The delay cannot be taken off the wall time
// instead: part of it falls inside operators and is already in host_ops_s,
// so at 17.7 % wait the bound would be 74 % of the wall, below the 89 % of
// the code before 9e10dc4, which that check would have passed. Fails on the
// old code on a quiet machine (operators 89 % of ddp's steps: the hooks'
// bodies and the waits were in no operator).
TEST_CASE("profile pass: ddp on 2 ranks, operators cover 90 % of the profiled steps on a quiet machine") {
  const RanksProfile r = profile_ddp_on_two_ranks();
  if (r.finished && !r.profile.cpu_wait_s)
    FTB_SKIP_CASE("no run delay recorded (/proc/thread-self/schedstat unreadable): the load is unknown");
  const double waited = r.profile.cpu_wait_s.value_or(0);
  if (r.finished && waited > 0.05 * r.profile.wall_s)
    FTB_SKIP_CASE("the stepping thread waited for a CPU " << waited << " s of " << r.profile.wall_s
                                                          << " s (other processes' load): coverage not measurable");
  REQUIRE(r.finished);
  const ftb::OpProfile& p = r.profile;
  MESSAGE("operators ", p.host_ops_s, " s of ", p.wall_s, " s, waited for a CPU ", waited, " s");
  CHECK_MESSAGE(p.host_ops_s >= 0.9 * p.wall_s, "operators ", p.host_ops_s, " s of ", p.wall_s, " s");
}
