// ftbench run: resolve the config, build the workload once, run each selected
// scenario (repeats, skipped/failed rows recorded), write the report after
// every scenario (atomically: a crash later never loses what was written).
#include <chrono>
#include <ctime>
#include <iostream>

#include "bench/commands.h"
#include "bench/progress.h"
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

struct RunArgs {
  std::string preset = "smoke";
  std::string scenarios, model, data, out, device;
  int repeats = 0;
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
  for (const auto& o : a.overrides) apply_override(c, o);
  validate(c);
  return c;
}

int run(const RunArgs& args) {
  RunConfig config = resolve_config(args);
  const auto selected = select_scenarios(config.scenarios);  // unknown names fail before any work
  const auto device = resolve_device(config.device);
  const int threads = configure_threads(config.threads);
  const std::string out_dir = args.out.empty() ? default_out_dir() : args.out;

  std::vector<std::vector<std::string>> rows{{"key", "value", "meaning"}};
  for (auto& r : config_rows(config)) rows.push_back(r);
  rows.push_back({"out", out_dir, "report folder"});
  rows.push_back({"(resolved device)", device.str(), ""});
  rows.push_back({"(intra-op threads)", std::to_string(threads), "set explicitly; recorded in the report"});
  print_table(rows);
  std::cout << std::flush;

  std::cerr << "preparing data ...\n";
  Workload workload = build_workload(config);
  std::cerr << "data: " << workload.train.size() << " train / " << workload.val.size() << " val / "
            << workload.test.size() << " test examples (" << workload.data_source << "), vocab "
            << workload.tokenizer->vocab_size() << ", " << workload.prep_time_s << " s\n";

  Report report;
  report.environment = capture_environment();
  // MFU is reported against peaks measured here, per precision (a GPU or CPU
  // we have no table for is measured, never guessed). TF32 stays off for fp32.
  const double peak = measure_matmul_tflops(device, torch::kFloat32);
  // On CUDA, mixed-precision rows are measured against the bf16/fp16 peak.
  // On CPU they are against the fp32 peak: a bare bf16 matmul on an AVX2 CPU
  // has no fast kernel (we measured ~1 GFLOP/s), while autocast's linear
  // layers do better, so a bf16 "peak" would give MFU above 100 %.
  std::map<std::string, double> peaks{{"fp32", peak}};
  if (device.is_cuda()) {
    peaks["bf16-mixed"] = measure_matmul_tflops(device, torch::kBFloat16);
    peaks["fp16-mixed"] = measure_matmul_tflops(device, torch::kFloat16);
  }
  report.environment["peak_matmul_tflops"] = {{"by_precision", peaks}, {"device", device.str()},
                                             {"method", "best of 5 square matmuls per dtype, size grown to 2048 while one takes < 50 ms"}};
  report.config = to_json(config);
  report.config["workload"] = workload.describe();
  report.config["out"] = out_dir;
  std::cerr << "measured fp32 matmul peak on " << device.str() << ": " << peak << " TFLOP/s\n";

  ProgressPrinter progress;
  bool any_failed = false;
  for (const ScenarioInfo* info : selected) {
    ScenarioContext ctx;
    ctx.callbacks = {&progress};
    ctx.peak_tflops = peak;
    ctx.peak_tflops_by_precision = peaks;
    ctx.out_dir = out_dir;
    ScenarioResult r = run_scenario(*info, workload, config, ctx);
    if (r.status == Status::skipped) std::cerr << "[" << r.scenario << "] skipped: " << r.reason << "\n";
    if (r.status == Status::failed) {
      std::cerr << "[" << r.scenario << "] FAILED: " << r.reason << "\n";
      any_failed = true;
    }
    report.results.push_back(std::move(r));
    write_run_outputs(out_dir, report);
  }
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
  sub->add_option("overrides", args->overrides,
                  "key=value config overrides, e.g. epochs=1 batch_size=8 lr=1e-4 "
                  "(keys: the table printed at start)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace ftb
