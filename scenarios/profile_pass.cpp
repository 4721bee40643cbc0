#include "scenarios/profile_pass.h"

#include <iostream>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/interrupt.h"
#include "core/measure/device.h"
#include "core/measure/op_profiler.h"

namespace ftb {

std::string profile_trace_name(const std::string& row) { return std::string(kProfilesDir) + "/" + row + ".trace.json.gz"; }

RunConfig profile_pass_config(RunConfig c) {
  c.epochs = 1;
  c.max_steps = c.warmup_steps + c.profile;
  c.eval_max_batches = 1;
  c.repeats = 1;
  return c;
}

OpProfile profile_not_taken(const std::string& why) {
  OpProfile p;
  p.note = "not profiled: " + why;
  return p;
}

OpProfile profile_row(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                      const std::string& out_dir) {
  const RunConfig c = profile_pass_config(config);
  ProfileRequest request;
  request.first_step = c.warmup_steps + 1;
  request.steps = c.profile;
  request.device = resolve_device(c.device);
  if (!out_dir.empty()) {
    make_directories(out_dir + "/" + kProfilesDir);
    request.trace_path = out_dir + "/" + profile_trace_name(info.name);
  }
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
  OpProfile p = profiler.profile();
  if (!out_dir.empty()) p.trace = profile_trace_name(info.name);
  p.note = "an extra pass after the row's timed repeats (not part of any timed figure): " +
           std::to_string(c.warmup_steps) + " warm-up steps, then " + std::to_string(p.steps) +
           " steps under LibTorch's Kineto profiler (" +
           (p.device ? "CPU operators and CUDA kernels through CUPTI" : "CPU operators") +
           "), each step's range ending with a wait for the device; self times of host operators on every thread";
  std::cerr << "[" << info.name << "] profiled " << p.steps << " steps (untimed): " << p.wall_s << " s, operators "
            << p.host_ops_s << " s" << (p.trace.empty() ? "" : ", trace " + p.trace) << "\n";
  return p;
}

}  // namespace ftb
