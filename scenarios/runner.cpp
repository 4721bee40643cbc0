#include "scenarios/runner.h"

#include <algorithm>

#include "core/errors.h"
#include "core/flops.h"
#include "core/train_loop.h"

namespace ftb {

void compute_efficiency(ScenarioResult& r, const DistilBertConfig& model, int64_t warmup_steps,
                        double peak_tflops) {
  double flops = 0, seconds = 0;
  for (const auto& s : r.steps) {
    if (s.step <= warmup_steps) continue;
    flops += train_step_flops(model, s.samples, s.seq_len) * r.world_size;
    seconds += s.step_ms / 1000.0;
  }
  r.warmup_steps = warmup_steps;
  r.model_tflops_per_s = seconds > 0 ? flops / seconds / 1e12 : 0;
  // Ranks on GPUs have one device each; ranks on a CPU share the cores the
  // peak was measured with.
  const int devices = r.device.rfind("cuda", 0) == 0 ? r.world_size : 1;
  r.mfu = peak_tflops > 0 ? r.model_tflops_per_s / (peak_tflops * devices) : 0;
}

ScenarioResult run_scenario(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                            ScenarioContext context) {
  ScenarioResult out;
  out.scenario = info.name;
  out.world_size = info.distributed ? config.world_size : 1;
  out.precision = info.precision_of ? info.precision_of(config) : info.precision;
  if (std::string why = info.unavailable ? info.unavailable(config) : ""; !why.empty()) {
    out.status = Status::skipped;
    out.reason = why;
    return out;
  }
  std::vector<RepeatSample> samples;
  for (int rep = 0; rep < config.repeats; ++rep) {
    context.repeat = rep;
    try {
      ScenarioResult r = info.run(workload, config, context);
      r.scenario = info.name;
      samples.insert(samples.end(), r.repeats.begin(), r.repeats.end());
      out = std::move(r);
    } catch (const InputError&) {
      throw;  // bad input stops the run with exit code 2, not a failed row
    } catch (const std::exception& e) {
      out.status = Status::failed;
      out.reason = e.what();
      // one line: c10::Error messages carry a backtrace after the first line
      if (auto nl = out.reason.find('\n'); nl != std::string::npos) out.reason.resize(nl);
      return out;
    }
  }
  auto med = [&](double RepeatSample::*f) {
    std::vector<double> v;
    for (const auto& s : samples) v.push_back(s.*f);
    return median(v);
  };
  out.repeats = samples;
  out.wall_time_s = med(&RepeatSample::wall_time_s);
  out.train_samples_per_s = med(&RepeatSample::train_samples_per_s);
  out.train_tokens_per_s = med(&RepeatSample::train_tokens_per_s);
  for (const auto& s : samples) out.peak_bytes = std::max(out.peak_bytes, s.peak_bytes);
  const auto peak = context.peak_tflops_by_precision.find(out.precision);
  compute_efficiency(out, workload.model_config, config.warmup_steps,
                     peak != context.peak_tflops_by_precision.end() ? peak->second : context.peak_tflops);
  return out;
}

}  // namespace ftb
