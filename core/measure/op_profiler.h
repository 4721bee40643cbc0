// A window of training steps under LibTorch's Kineto profiler
// (torch/csrc/autograd/profiler_kineto.h): CPU operators, and on a GPU the
// CUDA kernels and copies through CUPTI. The loop asks the profiler made
// active on this thread before and after each step (like PhaseScope's
// recorder), so the scenarios keep their step functions. Each profiled step
// is a range named profiler_step_name(n) and the phases inside it are ranges
// named as the report's phases (PhaseScope), so the trace lines up with the
// report. The window is meant for an extra, untimed pass (the sweep's): the
// profiler's overhead must never reach a timed figure.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "core/measure/op_profile.h"

namespace at {
struct RecordFunction;
}

namespace ftb {

struct ProfileRequest {
  int64_t first_step = 1;  // the 1-based global step the window starts at (after the warm-up steps)
  int64_t steps = 5;
  // The Chrome trace to write: gzip-compressed when it ends in ".gz".
  std::string trace_path;
  torch::Device device = torch::kCPU;
};

class StepProfiler {
 public:
  explicit StepProfiler(ProfileRequest request);
  ~StepProfiler();  // stops a window still open (an exception inside it)
  StepProfiler(const StepProfiler&) = delete;
  StepProfiler& operator=(const StepProfiler&) = delete;

  // Around global step `step` (1-based): the first starts the profiler, the
  // last stops it, writes the trace and summarises the events. On a device
  // each profiled step ends with a wait for the device, so its range holds
  // the step's kernels.
  void before_step(int64_t step);
  void after_step(int64_t step);
  bool finished() const { return finished_; }
  // The summary (after finished(); trace = the path asked for).
  const OpProfile& profile() const { return profile_; }

 private:
  void stop();
  ProfileRequest request_;
  bool running_ = false, finished_ = false;
  std::unique_ptr<at::RecordFunction> step_range_;
  OpProfile profile_;
  // The stepping thread's run delay (op_profile.h, cpu_wait_s): at the
  // current step's start, and summed over the steps; -1 = unknown.
  int64_t wait_at_start_ns_ = -1;
  int64_t cpu_wait_ns_ = 0;
  bool cpu_wait_known_ = true;
};

// Makes `profiler` the one this thread's training loop reports to, for the
// guard's lifetime (the previous one is restored).
class ActiveStepProfiler {
 public:
  explicit ActiveStepProfiler(StepProfiler* profiler);
  ~ActiveStepProfiler();
  ActiveStepProfiler(const ActiveStepProfiler&) = delete;
  ActiveStepProfiler& operator=(const ActiveStepProfiler&) = delete;

 private:
  StepProfiler* previous_;
};
StepProfiler* active_step_profiler();  // nullptr = none

// Writes `text` gzip-compressed (zlib) to `path`; std::runtime_error naming it.
void write_gzip_file(const std::string& path, const std::string& text);

}  // namespace ftb
