// ftbench duet [run flags] --out DIR: tonight's build (side B) against a
// reference (side A) at the same time, each on its own cores, pair after
// pair, judged on each pair's log ratio B / A (reports/analysis/duet.h)
// within a time budget. The sides are two executables (--a, --b; both this
// one by default) or one with a side's own overrides (--a-set, --b-set);
// the sides swap cores every pair, so neither keeps the faster core, and
// with --rotate-s trade them within a pair too. Each
// side's report is DIR/pair-K/{a,b}/report.json; DIR/duet.json holds both
// sides, every pair, the cores, the swap and the verdicts, rewritten after
// every pair (an interrupted job keeps what it measured); DIR/duet.md the
// table. --sequential runs the sides one after the other on the same cores
// (alternating which goes first), for machines that cannot host both.
// Exit: 0 no row slower, 1 a row slower or a side failed, 2 bad input.
#include <chrono>
#include <cmath>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>

#include <unistd.h>

#include "bench/commands.h"
#include "bench/duet_pair.h"
#include "bench/duet_report.h"
#include "bench/run_flags.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/fnv_hash.h"
#include "core/measure/device.h"
#include "reports/record/report.h"
#include "scenarios/parallel/rank_protocol.h"

namespace ftb {
namespace {

struct DuetArgs {
  RunArgs run;
  std::string out, a_exe, b_exe, rejudge;
  std::vector<std::string> a_set, b_set, a_env, b_env;
  int cores_per_side = 1;
  int gpus_per_side = 0;
  double budget_s = 900;
  double rotate_s = 0.25;
  bool rotate_given = false;  // --rotate-s on the command line (the sequential mode refuses it)
  bool sequential = false;
  stats::DuetDesign design;
};

void check_executable(const std::string& path, const std::string& flag) {
  if (::access(path.c_str(), X_OK) != 0) input_error(flag, "'" + path + "' is not an executable file");
}

// Sides that run on CUDA need GPUs of their own (two sides on one GPU share
// its streams and memory: their ratio measures the sharing); CPU sides none.
void check_gpus(const DuetArgs& a, bool cuda) {
  if (a.gpus_per_side < 0) input_error("--gpus-per-side", "must be >= 0");
  if (cuda && a.gpus_per_side == 0)
    input_error("--gpus-per-side", "the sides run on CUDA (--device): give each side GPUs of its own "
                                   "(--gpus-per-side 1 needs 2 GPUs at once, 1 with --sequential); this machine "
                                   "has " + std::to_string(cuda_device_count()));
  const int need = a.sequential ? a.gpus_per_side : 2 * a.gpus_per_side;
  if (a.gpus_per_side > 0 && cuda_device_count() < need)
    input_error("--gpus-per-side", "needs " + std::to_string(need) + " GPUs; this machine has " +
                                       std::to_string(cuda_device_count()));
}

// What can be checked before any pair: the flags, both executables, the
// cores, the GPUs, the folder.
DuetJob plan_job(DuetArgs& a) {
  if (a.a_exe.empty()) a.a_exe = self_executable();
  if (a.b_exe.empty()) a.b_exe = self_executable();
  check_executable(a.a_exe, "--a");
  check_executable(a.b_exe, "--b");
  if (a.cores_per_side < 1) input_error("--cores-per-side", "must be at least 1");
  if (!(a.budget_s > 0)) input_error("--budget-s", "must be > 0");
  if (!(a.rotate_s >= 0)) input_error("--rotate-s", "must be >= 0 (0: each side keeps its cores for the pair)");
  if (a.sequential && a.rotate_given && a.rotate_s > 0)
    input_error("--rotate-s", "needs both sides at once (not --sequential)");
  if (const auto why = stats::design_problem(a.design); !why.empty()) input_error("--looks/--alpha", why);
  bool cuda = false;
  for (const auto* set : {&a.a_set, &a.b_set}) {  // each side's flags resolve (bad ones fail here)
    RunArgs side = a.run;
    side.overrides.insert(side.overrides.end(), set->begin(), set->end());
    const RunConfig c = resolve_config(side);
    cuda = cuda || c.device.rfind("cuda", 0) == 0 || (c.device == "auto" && cuda_available());
  }
  check_gpus(a, cuda);
  const auto cpus = available_cpus();
  const int need = a.sequential ? a.cores_per_side : 2 * a.cores_per_side;
  if (static_cast<int>(cpus.size()) < need)
    input_error("--cores-per-side", "the " + std::string(a.sequential ? "sequential mode" : "duet") + " needs " +
                                        std::to_string(need) + " cores (" + std::to_string(a.cores_per_side) +
                                        " a side" + (a.sequential ? "" : ", two sides at once") + "); this process may use " +
                                        std::to_string(cpus.size()) + (a.sequential ? "" : " (or run --sequential)"));
  check_writable_directory(a.out, "--out");
  if (::access((a.out + "/duet.json").c_str(), F_OK) == 0)
    input_error("--out", "'" + a.out + "' already holds a duet (duet.json); give a new folder");
  DuetJob job;
  job.design = a.design;
  job.budget_s = a.budget_s;
  job.sequential = a.sequential;
  job.rotate_s = a.sequential ? 0 : a.rotate_s;
  for (int i = 0; i < a.cores_per_side; ++i) {
    job.core_sets[0].push_back(cpus[i]);
    job.core_sets[1].push_back(cpus[a.sequential ? i : a.cores_per_side + i]);
  }
  for (int i = 0; i < a.gpus_per_side; ++i) {  // CUDA_VISIBLE_DEVICES: the side sees its GPUs as 0..N-1
    job.gpu_sets[0].push_back(i);
    job.gpu_sets[1].push_back(a.sequential ? i : a.gpus_per_side + i);
  }
  const auto side_args = [&](const std::vector<std::string>& set) {
    auto args = run_flag_args(a.run);
    args.insert(args.end(), set.begin(), set.end());
    args.push_back("threads=" + std::to_string(a.cores_per_side));  // a side's threads are its cores
    return args;
  };
  for (const auto* env : {&a.a_env, &a.b_env})
    for (const auto& kv : *env)
      if (kv.find('=') == std::string::npos || kv.front() == '=') input_error("--a-env/--b-env", "'" + kv + "' is not KEY=VALUE");
  job.a = {a.a_exe, side_args(a.a_set), a.a_env, fnv1a64_hex(read_text_file(a.a_exe))};
  job.b = {a.b_exe, side_args(a.b_set), a.b_env, fnv1a64_hex(read_text_file(a.b_exe))};
  return job;
}

// Pair k (from 1): in the duet the sides swap core sets on even pairs; in
// the sequential mode they alternate which goes first.
PairRun pair_setup(const DuetJob& job, int k) {
  PairRun p;
  p.together = !job.sequential;
  p.rotate_s = job.rotate_s;
  const bool swapped = k % 2 == 0;
  p.first = job.sequential && swapped ? 'b' : 'a';
  p.a.cores = job.core_sets[swapped && !job.sequential ? 1 : 0];
  p.b.cores = job.core_sets[swapped && !job.sequential ? 0 : 1];
  p.a.gpus = job.gpu_sets[swapped && !job.sequential ? 1 : 0];
  p.b.gpus = job.gpu_sets[swapped && !job.sequential ? 0 : 1];
  const std::string dir = job.out + "/pair-" + std::to_string(k);
  make_directories(dir);
  p.a.out = dir + "/a";
  p.b.out = dir + "/b";
  return p;
}

// Whether another pair fits: the longest pair so far must fit in what is left.
bool next_pair_fits(const DuetJob& job, double elapsed_s) {
  double longest = 0;
  for (const auto& p : job.pairs) longest = std::max(longest, p.run.seconds);
  return elapsed_s + longest <= job.budget_s;
}

// --rejudge FILE: the verdicts of a recorded job judged again (its own
// design, or the design flags given), printed; nothing run, nothing written.
int rejudge_duet(const DuetArgs& a, const CLI::App& sub) {
  DuetJob job = read_duet_file(a.rejudge);
  if (sub.count("--looks")) job.design.looks = a.design.looks;
  if (sub.count("--alpha")) job.design.family_alpha = a.design.family_alpha;
  if (sub.count("--same-risk")) job.design.same_risk = a.design.same_risk;
  if (sub.count("--min-effect")) job.design.min_effect = a.design.min_effect;
  if (const auto why = stats::design_problem(job.design); !why.empty()) input_error("--looks/--alpha", why);
  rejudge(job);
  std::cout << duet_markdown(job);
  return any_worse(job) ? 1 : 0;
}

int run_duet(DuetArgs a, const CLI::App& sub) {
  if (!a.rejudge.empty()) return rejudge_duet(a, sub);
  if (a.out.empty()) input_error("--out", "is required (the folder for the pairs' reports and duet.json)");
  a.rotate_given = sub.count("--rotate-s") > 0;
  DuetJob job = plan_job(a);
  job.out = a.out;
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const int last = job.design.looks.back();
  for (int k = 1; k <= last; ++k) {
    if (k > 1 && !next_pair_fits(job, elapsed())) {
      job.stopped = "budget";
      break;
    }
    std::cerr << "\n== duet: pair " << k << " (at most " << last << ", " << static_cast<int>(elapsed()) << " of "
              << job.budget_s << " s used) ==\n";
    const double left = std::max(60.0, job.budget_s - elapsed());
    add_pair(job, run_pair(job.a, job.b, pair_setup(job, k), left));
    if (!job.failure.empty()) break;
    if (std::find(job.design.looks.begin(), job.design.looks.end(), k) != job.design.looks.end() && judge(job)) {
      job.stopped = "settled";
      break;
    }
    job.elapsed_s = elapsed();
    write_duet(job);
  }
  if (job.stopped.empty()) job.stopped = job.failure.empty() ? "last look" : "a side failed";
  if (job.failure.empty() && job.judged_at != static_cast<int>(job.pairs.size())) judge(job);
  job.elapsed_s = elapsed();
  write_duet(job);
  std::cout << duet_markdown(job);
  if (!job.failure.empty()) {
    std::cerr << "duet: " << job.failure << "\n";
    return 1;
  }
  return any_worse(job) ? 1 : 0;
}

}  // namespace

Command add_duet_command(CLI::App& app) {
  auto a = std::make_shared<DuetArgs>();
  auto* sub = app.add_subcommand("duet", "tonight (--b) against a reference (--a), both at once on their own cores, "
                                         "judged pair by pair on the log ratio within a time budget");
  add_run_flags(sub, a->run);
  sub->add_option("--out", a->out, "folder for the pairs' reports, duet.json and duet.md (required unless --rejudge)");
  sub->add_option("--rejudge", a->rejudge, "a recorded duet.json judged again from its pairs (its design, or the "
                                           "design flags given), printed; nothing runs");
  sub->add_option("--a", a->a_exe, "the reference ftbench executable (default: this one)");
  sub->add_option("--b", a->b_exe, "tonight's ftbench executable (default: this one)");
  sub->add_option("--a-set", a->a_set, "key=value overrides for side A only (repeatable)");
  sub->add_option("--b-set", a->b_set, "key=value overrides for side B only (repeatable)");
  sub->add_option("--a-env", a->a_env, "KEY=VALUE in side A's environment only (repeatable)");
  sub->add_option("--b-env", a->b_env, "KEY=VALUE in side B's environment only (repeatable; FTB_TEST_SLOWDOWN=0.05: "
                                       "a real 5 % slowdown, test-only)");
  sub->add_option("--cores-per-side", a->cores_per_side, "cores (and intra-op threads) each side gets (default 1)");
  sub->add_option("--gpus-per-side", a->gpus_per_side,
                  "GPUs each side gets (CUDA_VISIBLE_DEVICES, swapped every pair like the cores; default 0: CPU "
                  "sides; CUDA sides must have their own)");
  sub->add_option("--budget-s", a->budget_s, "the job's time budget in seconds (default 900)");
  sub->add_option("--rotate-s", a->rotate_s,
                  "the sides trade cores this often within a pair, so a core slower for a while slows both "
                  "(every thread of each side re-pinned; default 0.25; 0: each keeps its cores for the pair; "
                  "the sequential mode: 0)");
  sub->add_option("--looks", a->design.looks, "pair counts to judge at (default 3,5,8,12; the last is the most pairs)")
      ->delimiter(',');
  sub->add_option("--alpha", a->design.family_alpha, "whole-job false alarms over every row and look (default 0.01)");
  sub->add_option("--same-risk", a->design.same_risk,
                  "chance a change of --min-effect or more reads same, per row (default 0.10)");
  sub->add_option("--min-effect", a->design.min_effect, "the smallest change that matters (default 0.03: 3 %)");
  sub->add_flag("--sequential", a->sequential, "one side after the other on the same cores (a machine without room "
                                               "for both at once)");
  return {sub, [a, sub] { return run_duet(*a, *sub); }};
}

}  // namespace ftb
