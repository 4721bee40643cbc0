#include "scenarios/profile_pass.h"

#include <iostream>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/text_format.h"
#include "core/base/interrupt.h"
#include "core/measure/device.h"
#include "core/measure/op_profiler.h"
#include "scenarios/parallel/rank_protocol.h"

namespace ftb {

std::string profile_trace_name(const std::string& row) { return std::string(kProfilesDir) + "/" + row + ".trace.json.gz"; }

RunConfig profile_pass_config(RunConfig c) {
  c.epochs = 1;
  c.max_steps = c.warmup_steps + c.profile;
  c.eval_max_batches = 1;
  c.repeats = 1;
  return c;
}

bool has_steps(const OpProfile& p) { return p.steps > 0; }

OpProfile profile_not_taken(const std::string& why) {
  OpProfile p;
  p.note = "not profiled: " + why;
  return p;
}

namespace {

std::string trace_path(const std::string& out_dir, const std::string& row) {
  if (out_dir.empty()) return "";
  make_directories(out_dir + "/" + kProfilesDir);
  return out_dir + "/" + profile_trace_name(row);
}

// The note of a profile taken, the trace relative to the report's folder, a log line.
OpProfile described(OpProfile p, const RunConfig& c, const std::string& row, const std::string& out_dir,
                    const std::string& who) {
  if (!has_steps(p)) return p;
  p.trace = out_dir.empty() ? "" : profile_trace_name(row);
  p.note = "an extra pass after the row's timed repeats (not part of any timed figure): " +
           std::to_string(c.warmup_steps) + " warm-up steps, then " + std::to_string(p.steps) +
           " steps under LibTorch's Kineto profiler (" +
           (p.device ? "CPU operators and CUDA kernels through CUPTI" : "CPU operators") + ")" + who +
           ", each step's range ending with a wait for the device; self times of host operators on every thread";
  std::cerr << "[" << row << "] profiled " << p.steps << " steps (untimed): " << p.wall_s << " s, operators "
            << p.host_ops_s << " s"
            << (p.cpu_wait_s ? ", waited for a CPU " + format_double("%.3g", *p.cpu_wait_s) + " s" : std::string())
            << (p.trace.empty() ? "" : ", trace " + p.trace) << "\n";
  return p;
}

}  // namespace

std::string label_graph_profile(OpProfile p, const ScenarioInfo& info) {
  if (!info.replays_cuda_graphs || !p.device) return p.note;
  return p.note + "; UNVERIFIED for a row that replays CUDA graphs: CUPTI before CUDA 13.1 Update 1 misrecords "
                  "graph kernels, and graphs captured before the profiler first starts are a known failure; no GPU "
                  "run has yet shown this row's device profile right";
}

OpProfile profile_ranks_row(const ScenarioInfo& info, const RunConfig& config, const std::string& out_dir,
                            int threads_per_rank) {
  try {
    const OpProfile p = profile_on_ranks(info, config, threads_per_rank, trace_path(out_dir, info.name));
    return described(p, profile_pass_config(config), info.name, out_dir,
                     " on rank 0 of " + std::to_string(config.world_size));
  } catch (const InputError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return profile_not_taken("the profiling pass failed: " + first_line(e.what()));
  }
}

OpProfile profile_row(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                      const std::string& out_dir) {
  const RunConfig c = profile_pass_config(config);
  ProfileRequest request;
  request.first_step = c.warmup_steps + 1;
  request.steps = c.profile;
  request.device = resolve_device(c.device);
  request.trace_path = trace_path(out_dir, info.name);
  StepProfiler profiler(request);
  try {
    ActiveStepProfiler active(&profiler);
    ScenarioContext ctx;  // no progress bar, no checkpoints in the report folder
    info.run(workload, c, ctx);
  } catch (const InputError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return profile_not_taken("the profiling pass failed: " + first_line(e.what()));
  }
  if (!profiler.finished())
    return profile_not_taken("the row's steps did not run through this process's training loop (the Python "
                             "peer), or its epoch had fewer than warmup_steps + profile steps");
  OpProfile p = described(profiler.profile(), c, info.name, out_dir, "");
  p.note = label_graph_profile(p, info);
  return p;
}

}  // namespace ftb
