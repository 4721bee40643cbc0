// ftbench run: resolve the config, build the workload once, run each selected
// scenario (repeats, skipped/failed rows recorded), write the report after
// every scenario (atomically: a crash later never loses what was written).
#include <chrono>
#include <ctime>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <thread>

#include "bench/commands.h"
#include "bench/progress.h"
#include "bench/ranks.h"
#include "core/dist_env.h"
#include "core/device.h"
#include "core/environment.h"
#include "core/errors.h"
#include "core/flops.h"
#include "core/run_config.h"
#include "core/workload.h"
#include "reports/report.h"
#include "reports/table.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"

namespace ftb {
namespace {

constexpr int kUnset = std::numeric_limits<int>::min();  // a flag not given

struct RunArgs {
  std::string preset = "smoke";
  std::string scenarios, model, data, out, device;
  int repeats = 0;
  int world_size = kUnset;
  std::vector<std::string> overrides;
};

std::string default_out_dir() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return std::string("out/") + buf;
}

RunConfig resolve_config(const RunArgs& a) {
  RunConfig c = preset_config(a.preset);
  // flags are shorthands for keys; key=value overrides come last
  if (!a.scenarios.empty()) apply_override(c, "scenarios=" + a.scenarios);
  if (!a.model.empty()) apply_override(c, "model_dir=" + a.model);
  if (!a.data.empty()) apply_override(c, "data=" + a.data);
  if (!a.device.empty()) apply_override(c, "device=" + a.device);
  if (a.repeats != 0) apply_override(c, "repeats=" + std::to_string(a.repeats));
  if (a.world_size != kUnset) apply_override(c, "world_size=" + std::to_string(a.world_size));
  for (const auto& o : a.overrides) apply_override(c, o);
  validate(c);
  return c;
}

int cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// world_size=0: one rank per GPU on CUDA; 2 on a CPU (with the cores split
// between them), so the distributed rows run on any machine with 2 cores.
int auto_world_size(const torch::Device& device) {
#ifdef FTB_WITH_CUDA
  if (device.is_cuda()) return std::max<int>(1, static_cast<int>(torch::cuda::device_count()));
#endif
  (void)device;
  return std::min(2, cores());
}

constexpr int64_t kPeakSizeCpu = 2048, kPeakSizeCuda = 8192;  // 2048 leaves launch overhead in a GPU's figure

// MFU is reported against peaks measured here, per precision (a GPU or CPU we
// have no table for is measured, never guessed). TF32 stays off for fp32. On
// CUDA, mixed-precision rows are measured against the bf16/fp16 peak. On a
// CPU they are against the fp32 peak: a bare bf16 matmul on an AVX2 CPU has
// no fast kernel (we measured ~1 GFLOP/s), while autocast's linear layers do
// better, so a bf16 "peak" would give MFU above 100 %.
std::map<std::string, double> measure_peaks_on(const torch::Device& device) {
  const int64_t n = device.is_cuda() ? kPeakSizeCuda : kPeakSizeCpu;
  std::map<std::string, double> peaks{{"fp32", measure_matmul_tflops(device, torch::kFloat32, n)}};
  if (device.is_cuda()) {
    peaks["bf16-mixed"] = measure_matmul_tflops(device, torch::kBFloat16, n);
    peaks["fp16-mixed"] = measure_matmul_tflops(device, torch::kFloat16, n);
  }
  return peaks;
}

int run(const RunArgs& args) {
  RunConfig config = resolve_config(args);
  const DistEnv env = dist_env_from_environment();
  const auto device = resolve_device(config.device);
  if (env.launched) {
    config.world_size = env.world_size;
    if (is_launched_rank()) {  // a rank started by run_on_ranks below: one scenario, one repeat
      config.scenarios = {std::getenv("FTB_LAUNCH_SCENARIO")};
      config.repeats = 1;
    }
  } else if (config.world_size == 0) {
    config.world_size = auto_world_size(device);
  }
  const auto selected = select_scenarios(config.scenarios);  // unknown names fail before any work
  // Threads: a process alone gets `threads` (0 = every core); N ranks on one
  // machine split them (torchrun's OMP_NUM_THREADS, FTB_THREADS from ours).
  const int total_threads = config.threads > 0 ? config.threads : cores();
  const int local_ranks = env.launched ? env.local_world_size : config.world_size;
  const int rank_threads = std::max(1, total_threads / std::max(1, local_ranks));
  if (is_launched_rank()) {
    const char* t = std::getenv("FTB_THREADS");
    configure_threads(t ? std::atoi(t) : rank_threads);
    ProgressPrinter progress;
    return run_launched_rank(config, {&progress});
  }
  const bool quiet = env.launched && env.rank != 0;  // under torchrun: rank 0 prints and writes
  int threads = configure_threads(env.launched ? rank_threads : config.threads);
  const std::string out_dir = args.out.empty() ? default_out_dir() : args.out;

  if (!quiet) {
    std::vector<std::vector<std::string>> rows{{"key", "value", "meaning"}};
    for (auto& r : config_rows(config)) rows.push_back(r);
    rows.push_back({"out", out_dir, "report folder"});
    rows.push_back({"(resolved device)", device.str(), ""});
    rows.push_back({"(intra-op threads)", std::to_string(threads), "set explicitly; recorded in the report"});
    if (env.launched)
      rows.push_back({"(rank)", std::to_string(env.rank) + " of " + std::to_string(env.world_size),
                      "started by " + env.source});
    print_table(rows);
    std::cout << std::flush;
    std::cerr << "preparing data ...\n";
  }
  Workload workload = build_workload(config);
  if (!quiet)
    std::cerr << "data: " << workload.train.size() << " train / " << workload.val.size() << " val / "
              << workload.test.size() << " test examples (" << workload.data_source << "), vocab "
              << workload.tokenizer->vocab_size() << ", " << workload.prep_time_s << " s\n";

  Report report;
  // Ranks other than 0 of an outside launcher report nothing: no environment,
  // no peak (several ranks measuring at once on one GPU or on shared cores
  // would measure each other).
  if (!quiet) report.environment = capture_environment();
  std::map<std::string, double> peaks;
  auto measure_peaks = [&] {
    peaks = measure_peaks_on(device);
    report.environment["peak_matmul_tflops"] = {
        {"by_precision", peaks}, {"device", device.str()}, {"threads", threads},
        {"method", "best of 5 square matmuls per dtype, size grown to " +
                       std::to_string(device.is_cuda() ? kPeakSizeCuda : kPeakSizeCpu) + " while one takes < 50 ms"}};
    std::cerr << "measured fp32 matmul peak on " << device.str() << " (" << threads
              << " threads): " << peaks["fp32"] << " TFLOP/s\n";
  };
  if (!quiet) measure_peaks();
  report.config = to_json(config);
  report.config["workload"] = workload.describe();
  report.config["out"] = out_dir;

  // Under an outside launcher every rank runs the distributed scenarios
  // together first; then the other ranks are done and rank 0 runs the
  // single-process ones alone, with every core.
  std::vector<const ScenarioInfo*> order;
  for (const auto* info : selected)
    if (!env.launched || info->distributed) order.push_back(info);
  if (env.launched && env.rank == 0)
    for (const auto* info : selected)
      if (!info->distributed) order.push_back(info);

  ProgressPrinter progress;
  bool any_failed = false;
  std::map<std::string, ScenarioResult> done;
  for (const ScenarioInfo* info : order) {
    if (env.launched && !info->distributed && threads != total_threads) {
      // Alone now (the other ranks are done): every core, and a CPU peak to match.
      threads = configure_threads(config.threads);
      if (!device.is_cuda()) measure_peaks();
    }
    ScenarioContext ctx;
    if (!quiet) ctx.callbacks = {&progress};
    // Ranks of an outside launcher on CPUs: rank 0 measured its share of the
    // cores, and the row's denominator is every rank's share.
    auto row_peaks = peaks;
    if (env.launched && info->distributed && !device.is_cuda())
      for (auto& [precision, tflops] : row_peaks) tflops *= env.world_size;
    ctx.peak_tflops = row_peaks["fp32"];
    ctx.peak_tflops_by_precision = row_peaks;
    ctx.out_dir = out_dir;
    // Distributed rows with world_size > 1 run as ranks of this executable.
    ScenarioInfo launched = *info;
    const bool on_ranks = info->distributed && !env.launched && config.world_size > 1 && info->run;
    if (on_ranks)
      launched.run = [&, info](const Workload&, const RunConfig& c, const ScenarioContext&) {
        return run_on_ranks(*info, c, rank_threads);
      };
    ScenarioResult r = run_scenario(launched, workload, config, ctx);
    r.threads = info->distributed ? (env.launched || on_ranks ? rank_threads : threads) : threads;
    if (r.status == Status::skipped && !quiet) std::cerr << "[" << r.scenario << "] skipped: " << r.reason << "\n";
    if (r.status == Status::failed) {
      std::cerr << "[" << r.scenario << "] FAILED" << (env.launched ? " on rank " + std::to_string(env.rank) : "")
                << ": " << r.reason << "\n";
      any_failed = true;
    }
    done[r.scenario] = std::move(r);
    // Under a launcher a failed rank leaves its peers waiting in a collective:
    // stop (after rank 0 wrote what it has), so the launcher sees it and stops
    // them all.
    if (quiet) {
      if (any_failed) return 1;
      continue;
    }
    // The report keeps the order asked for, whatever order the rows ran in.
    report.results.clear();
    for (const auto* s : selected)
      if (auto it = done.find(s->name); it != done.end()) report.results.push_back(it->second);
    write_run_outputs(out_dir, report);
    if (any_failed && env.launched) return 1;
  }
  if (any_failed && env.launched) return 1;
  if (quiet) return 0;
  std::cout << "\n" << speedup_table_markdown(report) << "\n";
  std::cout << "report: " << out_dir << "/report.json\n";
  return any_failed ? 1 : 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "run scenarios and write DIR/report.json, table.md, steps.csv, charts/");
  sub->add_option("--preset", args->preset, "smoke (default) | paper | synthetic-full | mfu");
  sub->add_option("--scenarios", args->scenarios, "comma-separated scenario names (default: all; see `list`)");
  sub->add_option("--model", args->model, "Hugging Face model folder (config.json, model.safetensors, vocab.txt)");
  sub->add_option("--data", args->data, "aclImdb_v1.tar.gz, an aclImdb/ folder, a CSV, or a train/val/test.csv folder");
  sub->add_option("--out", args->out, "report folder (default out/<date-time>)");
  sub->add_option("--repeats", args->repeats, "repeats per scenario (median reported)");
  sub->add_option("--device", args->device, "auto | cpu | cuda | cuda:N");
  sub->add_option("--world-size", args->world_size,
                  "ranks of the distributed scenarios (ddp, sharded, zero2, fabric); ftbench starts them "
                  "(0 = one per GPU, 2 on a CPU); under torchrun/SLURM/mpirun their WORLD_SIZE wins");
  sub->add_option("overrides", args->overrides,
                  "key=value config overrides, e.g. epochs=1 batch_size=8 lr=1e-4 "
                  "(keys: the table printed at start)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace ftb
