#include "scenarios/runner.h"

#include "core/base/errors.h"
#include "core/measure/flops.h"
#include "core/base/interrupt.h"
#include "core/measure/device.h"
#include "scenarios/common.h"
#include "scenarios/parallel/distributed_row.h"

namespace ftb {

void compute_efficiency(ScenarioResult& r, const ModelConfig& model, int64_t warmup_steps,
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
  r.mfu_peak_tflops = peak_tflops;
}

std::string does_not_fit_reason(const RunConfig& config, const std::string& allocator_message) {
  // The allocator's first sentence ("CUDA out of memory. Tried to allocate
  // 2.00 GiB. GPU 0 has ..."): what it wanted, not its whole account.
  std::string said = first_line(allocator_message);
  if (auto tried = said.find("Tried to allocate"); tried != std::string::npos) {
    const auto end = said.find(". ", tried);
    said = said.substr(0, end == std::string::npos ? said.size() : end);
  } else if (said.size() > 160) {
    said.resize(160);
  }
  return "does not fit in memory at batch_size=" + std::to_string(config.batch_size) +
         " and max_length=" + std::to_string(config.max_length) + " per rank (padding=" + to_string(config.padding) +
         "): lower batch_size or max_length" + (config.padding == Padding::max_length ? ", or set padding=longest" : "") +
         " (" + said + ")";
}

ScenarioResult row_header(const ScenarioInfo& info, const RunConfig& config) {
  ScenarioResult out;
  out.scenario = info.name;
  out.world_size = info.kind == RowKind::ranks ? config.world_size : 1;
  out.precision = info.precision_of ? info.precision_of(config) : info.precision;
  out.technique_settings = info.technique_settings;
  out.stack = info.stack;
  if (std::string why = info.unavailable ? info.unavailable(config) : ""; !why.empty()) {
    out.status = Status::skipped;
    out.reason = why;
  }
  return out;
}

namespace {

// Which SDPA kernel the row's attention ran (extra.attention_backend), unless
// the row recorded its own (the CUDA-graph rows switch cuDNN's off for
// capture; the Python peer dispatches in its own process).
void record_attention_backend(ScenarioResult& r, const Workload& w, const RunConfig& c) {
  if (r.extra.contains("attention_backend")) return;
  if (r.extra.contains("attn_implementation")) {  // the peer: HF's own SDPA call, in Python
    r.extra["attention_backend"] = "not measured (the Python peer's own SDPA dispatch)";
    return;
  }
  r.extra["attention_backend"] = attention_backend(w, c, torch::Device(r.device), r.precision);
}

}  // namespace

namespace {
// seed_per_repeat: repeat i retrains with the training seed + i (initial
// weights, dropout, shuffling), on the same data split; ranks launched for
// the row get the seed through their configuration.
ScenarioResult run_with_seed(const RepeatFn& run, const Workload& workload, const RunConfig& config,
                             const ScenarioContext& context) {
  RunConfig c = config;
  c.train_seed = training_seed(config) + static_cast<uint64_t>(context.repeat);
  Workload w = workload;  // the splits copied: a repeat's seconds, not its minutes
  w.seed = c.train_seed;
  return run(w, c, context);
}
}  // namespace

void run_repeat(ScenarioResult& row, const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                const ScenarioContext& context, const RepeatFn& repeat) {
  const RepeatFn& run = repeat ? repeat : info.run;
  std::vector<RepeatSample> samples = std::move(row.repeats);
  try {
    throw_if_interrupted();  // a signal during warm-up or between rows ends this row
    ScenarioResult r = config.seed_per_repeat && context.repeat > 0
                           ? run_with_seed(run, workload, config, context)
                           : run(workload, config, context);
    r.scenario = info.name;
    record_attention_backend(r, workload, config);
    r.technique_settings = info.technique_settings;
    if (r.stack.empty()) r.stack = info.stack;  // a row whose stack depends on the device set its own
    for (auto& s : r.repeats)
      if (s.phases.empty()) s.phases = r.phases;  // this repeat's (the row keeps their median)
    samples.insert(samples.end(), r.repeats.begin(), r.repeats.end());
    row = std::move(r);
  } catch (const InputError&) {
    throw;  // bad input stops the run with exit code 2, not a failed row
  } catch (const Interrupted&) {
    // The sweep writes the report with this row and stops (core/base/interrupt.h).
    row.status = Status::failed;
    row.reason = kInterruptedReason;
    row.repeats = std::move(samples);
    throw;
  } catch (const c10::OutOfMemoryError& e) {
    // Not the allocator's stack trace: the settings that decide the memory.
    row.status = Status::failed;
    row.reason = does_not_fit_reason(config, e.what());
    row.repeats = std::move(samples);
    return;
  } catch (const std::exception& e) {
    row.status = Status::failed;
    row.reason = first_line(e.what());
    row.repeats = std::move(samples);
    return;
  }
  row.repeats = std::move(samples);
  aggregate_repeats(row);
  const auto peak = context.peak_tflops.find(row.precision);
  const auto fp32 = context.peak_tflops.find(Precision::fp32);
  compute_efficiency(row, workload.model_config, config.warmup_steps,
                     peak != context.peak_tflops.end()    ? peak->second
                     : fp32 != context.peak_tflops.end() ? fp32->second
                                                         : 0);
}

// The device a row runs on, for its DeviceScope: a rank's own GPU, else --device.
torch::Device row_device(const ScenarioInfo& info, const RunConfig& config) {
  if (!cuda_available()) return torch::Device(torch::kCPU);
  return info.kind == RowKind::ranks ? rank_device(config, dist_env_or_world_of_one()) : resolve_device(config.device);
}

ScenarioResult run_scenario(const ScenarioInfo& info, const Workload& workload, const RunConfig& config,
                            ScenarioContext context, const RepeatFn& repeat) {
  ScenarioResult out = row_header(info, config);
  if (out.status != Status::ok) return out;
  const DeviceScope on(row_device(info, config));  // everything of the row, on its device
  for (int rep = 0; rep < config.repeats && out.status == Status::ok; ++rep) {
    context.repeat = rep;
    run_repeat(out, info, workload, config, context, repeat);
  }
  return out;
}

}  // namespace ftb
