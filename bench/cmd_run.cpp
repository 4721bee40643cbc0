// ftbench run: flags -> config, the sweep runs the rows (scenarios/sweep.h),
// and the report is written after every row (atomically: a crash later never
// loses what was written).
#include <ctime>
#include <iostream>
#include <limits>

#include "bench/commands.h"
#include "bench/progress.h"
#include "core/text/files.h"
#include "core/train/environment.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "reports/report.h"
#include "reports/table.h"
#include "reports/views.h"
#include "scenarios/parallel/rank_protocol.h"
#include "scenarios/sweep.h"

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

// Flags are shorthands for keys; key=value overrides come last.
RunConfig resolve_config(const RunArgs& a) {
  RunConfig c = preset_config(a.preset);
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

int run(const RunArgs& args) {
  const RunConfig config = resolve_config(args);
  ProgressPrinter progress;
  if (is_launched_rank()) return run_launched_rank(config, {&progress});
  Sweep sweep(config, dist_env_from_environment());
  const std::string out = args.out.empty() ? default_out_dir() : args.out;
  if (sweep.reports()) {
    check_writable_directory(out, "--out");  // before any work
    print_config(sweep, out);
  }
  Workload workload = build_workload(sweep.config());
  if (sweep.reports()) std::cerr << workload.summary() << "\n" << workload.load_warning();
  Report report;
  if (sweep.reports()) report.environment = capture_environment();
  report.config = to_json(sweep.config());
  report.config["workload"] = workload.describe();
  report.config["out"] = out;
  report.results = sweep.run(workload, out, {&progress}, [&](const auto& results, const nlohmann::json& measured) {
    for (const auto& [key, value] : measured.items()) report.environment[key] = value;
    report.results = results;
    write_run_outputs(out, report);
  });
  if (!sweep.reports()) return sweep.exit_code();
  // The pictures come last: a renderer problem is said once and is no failure.
  const RenderOutcome views = write_report_views({out, &report, /*beside_report=*/true}, default_renderer());
  if (!views.rendered) std::cerr << "note: charts not rendered to SVG/PNG: " << views.why_not << "\n";
  std::cout << "\n" << speedup_table_markdown(report) << "\nreport: " << out << "/report.json\npage:   " << out
            << "/index.html\n";
  return sweep.exit_code();
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "run scenarios and write DIR/report.json, table.md, steps.csv, charts/, index.html");
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
