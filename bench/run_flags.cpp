#include "bench/run_flags.h"
#include "reports/record/run_report.h"
#include "reports/views/run_outputs.h"

#include <chrono>
#include <iostream>

#include "bench/progress.h"
#include "core/base/allocator.h"
#include "core/base/files.h"
#include "core/measure/environment.h"
#include "core/base/interrupt.h"
#include "core/train/workload.h"
#include "scenarios/parallel/rank_protocol.h"
#include "scenarios/sweep.h"

namespace ftb {

namespace {

// "ftbench run --preset mfu 'key=a b'": what was typed, quoted where the shell would need it.
std::string command_line(const std::vector<std::string>& args) {
  std::string out = "ftbench";
  for (const auto& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_=.,/:+@%") == std::string::npos;
    out += plain ? " " + a : " '" + a + "'";
  }
  return out;
}

}  // namespace

std::vector<std::string> run_flag_args(const RunArgs& a) {
  std::vector<std::string> out = {"--preset", a.preset};
  const std::pair<const char*, const std::string*> strings[] = {
      {"--scenarios", &a.scenarios}, {"--model", &a.model}, {"--data", &a.data}, {"--device", &a.device}};
  for (const auto& [flag, value] : strings)
    if (!value->empty()) out.insert(out.end(), {flag, *value});
  if (a.repeats != 0) out.insert(out.end(), {"--repeats", std::to_string(a.repeats)});
  if (a.world_size != kUnsetFlag) out.insert(out.end(), {"--world-size", std::to_string(a.world_size)});
  if (a.profile) out.push_back("--profile");
  out.insert(out.end(), a.overrides.begin(), a.overrides.end());
  return out;
}

void add_run_flags(CLI::App* sub, RunArgs& args) {
  sub->add_option("--preset", args.preset, "quick (default) | smoke | paper | synthetic-full | mfu | pretrained-small");
  sub->add_option("--scenarios", args.scenarios, "comma-separated scenario names (default: all; see `list`)");
  sub->add_option("--model", args.model, "Hugging Face model folder (config.json, model.safetensors, vocab.txt)");
  sub->add_option("--data", args.data, "aclImdb_v1.tar.gz, an aclImdb/ folder, a CSV, or a train/val/test.csv folder");
  sub->add_option("--repeats", args.repeats, "repeats per scenario (median reported)");
  sub->add_option("--device", args.device, "auto | cpu | cuda | cuda:N");
  sub->add_option("--world-size", args.world_size,
                  "ranks of the distributed scenarios (ddp, sharded, zero2, fabric); ftbench starts them "
                  "(0 = one per GPU, 2 on a CPU); under torchrun/SLURM/mpirun their WORLD_SIZE wins");
  sub->add_flag("--profile", args.profile,
               "after each row's timed repeats, profile 5 more steady steps (profile=N for N) under LibTorch's "
               "Kineto profiler in an untimed pass: profiles/<row>.trace.json.gz and the row's operators and "
               "categories in the report");
  sub->add_option("overrides", args.overrides,
                  "key=value config overrides, e.g. epochs=1 batch_size=8 lr=1e-4 "
                  "(keys: the table printed at start)");
}

RunConfig resolve_config(const RunArgs& a) {
  // Real reviews (--data, or a data= override) may change a preset's defaults.
  bool reviews = !a.data.empty();
  for (const auto& o : a.overrides)
    if (o.rfind("data=", 0) == 0) reviews = o.size() > 5;
  RunConfig c = preset_config(a.preset, reviews);
  if (!a.scenarios.empty()) apply_override(c, "scenarios=" + a.scenarios);
  if (!a.model.empty()) apply_override(c, "model_dir=" + a.model);
  if (!a.data.empty()) apply_override(c, "data=" + a.data);
  if (!a.device.empty()) apply_override(c, "device=" + a.device);
  if (a.repeats != 0) apply_override(c, "repeats=" + std::to_string(a.repeats));
  if (a.world_size != kUnsetFlag) apply_override(c, "world_size=" + std::to_string(a.world_size));
  if (a.profile) apply_override(c, "profile=5");
  for (const auto& o : a.overrides) apply_override(c, o);
  validate(c);
  return c;
}

SweepOutcome run_and_write(const RunConfig& config, const std::string& out, Report& report,
                           const nlohmann::json& run_noise) {
  // Before anything large is allocated, and in every rank (each re-runs this).
  const nlohmann::json allocator = apply_malloc_mode(config.allocator);
  ProgressPrinter progress;
  if (is_launched_rank()) return {run_launched_rank(config, {&progress}), false};
  const DistEnv env = dist_env_from_environment();
  // Ctrl-C / SIGTERM keep what was measured (core/base/interrupt.h). Not
  // under an outside launcher: it owns the ranks' signals, and one rank
  // stopping between steps alone would leave its peers in a collective.
  InterruptScope interrupts(/*enabled=*/!env.launched);
  Sweep sweep(config, env);
  if (sweep.reports()) {
    check_writable_directory(out, "--out");  // before any work
    print_config(sweep, out);
  }
  Workload workload = build_workload(sweep.config());
  if (const int sig = interrupt_signal()) {  // nothing measured yet: no report
    std::cerr << "interrupted by " << interrupt_signal_name(sig) << " before the first row; no report written\n";
    return {128 + sig, false};
  }
  if (sweep.reports()) std::cerr << workload.summary() << "\n" << workload.load_warning();
  report = begin_run_report({to_json(sweep.config()), workload.describe(), out,
                              sweep.reports() ? capture_environment() : nlohmann::json(nullptr),
                              command_line(invocation()), allocator, run_noise});
  const auto suite_start = std::chrono::steady_clock::now();
  size_t written_rows = 0;
  bool written = false;
  report.results = sweep.run(workload, out, {&progress}, [&](const auto& results, const nlohmann::json& measured) {
    record_rows(report, results, measured);
    write_run_outputs(out, report);
    written = true;
    written_rows = results.size();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - suite_start;
    std::cerr << suite_eta_line(results, sweep.rows(), sweep.config().repeats, elapsed.count());
  });
  return {sweep.exit_code(), sweep.reports(), written && written_rows == report.results.size()};
}

}  // namespace ftb
