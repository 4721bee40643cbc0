// A scenario is one row of the speed-up table: one technique applied to the
// shared fine-tuning core. Config in (Workload + RunConfig), result out
// (scenarios/result.h). Registry rows are filled by field name:
//   ScenarioInfo s;
//   s.name = "amp";
//   s.technique = "fp16 autocast + dynamic loss scaling ...";
//   s.precision = Precision::fp16_mixed;
//   s.unavailable = amp_unavailable;
//   s.run = run_amp;
//   return s;
// and registered in the same file, with the row's rank (scenarios/registry.h):
//   FTB_REGISTER_SCENARIO(amp_scenario, 400);
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/measure/precision.h"
#include "scenarios/result.h"

namespace ftb {

struct Workload;
struct RunConfig;
class LoopCallback;

// What the sweep hands a scenario besides the workload and config.
struct ScenarioContext {
  std::vector<LoopCallback*> callbacks;  // progress bar etc.
  int repeat = 0;                        // 0-based
  // Measured matmul peaks by precision (MFU's denominator); a precision
  // missing here is measured against the fp32 peak.
  std::map<Precision, double> peak_tflops;
  std::string out_dir;                   // the run's report folder (checkpoints go below it)
};

// How a row runs: in this process, or as world_size ranks on c10d (one
// process per rank; the sweep starts them through the launcher, or an outside
// launcher did).
enum class RowKind { single_process, ranks };

struct ScenarioInfo {
  std::string name;       // = file name = --scenarios name = "scenario" in the report = chart legend
  std::string technique;  // one line for `ftbench list`
  std::vector<std::string> aliases;  // e.g. "compiled" for cuda_graph
  RowKind kind = RowKind::single_process;
  // Empty when the scenario can run with this config on this machine,
  // otherwise why not (the row is then reported as skipped with it).
  std::function<std::string(const RunConfig&)> unavailable;
  // One repeat. Fills the measurements of ScenarioResult; the sweep fills
  // the aggregates (medians over repeats, MFU) and catches failures.
  std::function<ScenarioResult(const Workload&, const RunConfig&, const ScenarioContext&)> run;
  Precision precision = Precision::fp32;  // what the row reports, also when skipped
  // Replays captured CUDA graphs on a GPU: its device profile is labelled
  // unverified (scenarios/profile_pass.cpp) until a GPU run shows it right.
  bool replays_cuda_graphs = false;
  std::vector<RowSetting> technique_settings;  // what the technique itself changes (none for baseline; RowSetting: scenarios/result.h)
  // What the row stacks on baseline, for the ladder (reports/views/ladder.h):
  // "bf16", "fused_adam", "bucketing"; empty = not a rung. A row whose stack
  // depends on the device sets ScenarioResult::stack itself (fastest).
  std::vector<std::string> stack;
  // Where the precision depends on the config (distributed rows): overrides `precision`.
  std::function<Precision(const RunConfig&)> precision_of;
};

}  // namespace ftb
