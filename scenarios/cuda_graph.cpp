// cuda_graph: the reference's `torch.compile` row. LibTorch has no compiler;
// the C++ way to remove per-step launch overhead is to capture the whole
// training step (forward, backward, Adam) once in a CUDA graph and replay it.
//   - static shapes: sequences padded to max_length, drop_last batches;
//   - static buffers: each batch is copied into the captured input tensors;
//   - a capturable optimizer: FusedAdam keeps its step counters on the device;
//   - warm-up on a side stream before capture (lazy init of cuBLAS, Adam
//     state, allocator), then the weights and optimizer state are restored,
//     so training starts from the same point as baseline;
//   - capture time is reported separately and excluded from wall time, as the
//     reference advises for compilation.
//   - with bf16 (cuda_graph_bf16.cpp) the forward runs under bf16 autocast
//     with autocast's weight-cast cache off: a cached cast made during
//     capture would be a tensor the graph owns (as torch.autocast(...,
//     cache_enabled=False), which CUDA-graph capture requires).
// Needs CUDA; on other machines the row is skipped with its reason.
#include "scenarios/cuda_graph.h"

#include "core/train/autocast.h"
#include "core/train/optimizer.h"
#include "core/train/device.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <chrono>

namespace ftb {

std::string cuda_graph_unavailable(const RunConfig& c) {
#ifndef FTB_WITH_CUDA
  (void)c;
  return "needs CUDA: this build's LibTorch has no CUDA";
#else
  if (!cuda_available()) return "needs CUDA: no CUDA device visible";
  if (c.device == "cpu") return "needs CUDA: --device cpu was requested";
  if (!fused_adam_available(torch::Device(torch::kCUDA)))
    return "needs a capturable Adam: this LibTorch has no fused Adam kernel on CUDA";
  return "";
#endif
}

#ifdef FTB_WITH_CUDA
namespace {

// Autocast's cast cache off for the row (capture and replay), restored after.
class AutocastCacheOff {
 public:
  AutocastCacheOff() : was_(at::autocast::is_autocast_cache_enabled()) { at::autocast::set_autocast_cache_enabled(false); }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(was_); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool was_;
};

}  // namespace

ScenarioResult run_captured_step(const Workload& w, const RunConfig& config, const ScenarioContext& ctx,
                                 const std::string& name, Precision precision) {
  if (precision == Precision::fp16_mixed)
    throw std::logic_error("run_captured_step: fp16 needs a capturable loss scaler, which is not written yet");
  AutocastCacheOff cache_off;
  RunConfig c = config;
  c.padding = "max_length";  // one static shape for every captured step
  const auto device = resolve_device(c.device == "auto" ? "cuda" : c.device);
  auto model = w.make_model();
  model->to(device);
  auto adam = make_device_adam(model->parameters(), c.lr, device);  // capturable: step counters on the device
  FusedAdam& optimizer = *adam;
  RunLoaders loaders(w, c);
  reset_peak_memory(device);

  // Static inputs/outputs of the graph: (B, T) with T = max_length.
  auto long_opts = torch::TensorOptions().dtype(torch::kLong).device(device);
  auto ids = torch::zeros({c.batch_size, c.max_length}, long_opts);
  auto mask = torch::ones({c.batch_size, c.max_length}, long_opts);
  auto labels = torch::zeros({c.batch_size}, long_opts);
  torch::Tensor loss_out = torch::zeros({}, torch::TensorOptions().device(device));
  torch::Tensor correct_out = torch::zeros({}, long_opts);
  auto body = [&] {
    optimizer.zero_grad();
    Batch b{ids, mask, labels, 0};
    torch::Tensor loss, correct;
    {
      PrecisionAutocast autocast(device.type(), precision);
      std::tie(loss, correct) = forward_loss(model, b);  // loss in fp32 (forward_loss casts the logits)
    }
    loss.backward();
    optimizer.step();
    loss_out.copy_(loss.detach());
    correct_out.copy_(correct);
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<torch::Tensor> initial;
  for (const auto& p : model->parameters()) initial.push_back(p.detach().clone());
  {
    loaders.train.start_epoch(0);
    auto first = to_device(*loaders.train.next(), device);
    ids.copy_(first.input_ids), mask.copy_(first.attention_mask), labels.copy_(first.labels);
  }
  at::cuda::CUDAGraph graph;
  {
    // Order the side stream after the copies above, and the default stream
    // after the capture, through events (what torch.cuda.stream() does).
    auto main_stream = c10::cuda::getCurrentCUDAStream();
    auto side = c10::cuda::getStreamFromPool();
    at::cuda::CUDAEvent ready;
    ready.record(main_stream);
    ready.block(side);
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i) body();  // warm-up (lazy init) off the capture
    synchronize(device);
    {
      torch::NoGradGuard no_grad;
      auto params = model->parameters();
      for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(initial[i]);
    }
    optimizer.reset_state();
    graph.capture_begin();
    body();
    graph.capture_end();
    synchronize(device);
    at::cuda::CUDAEvent captured;
    captured.record(side);
    captured.block(main_stream);
  }
  // Capture does not execute the step: the weights are still the initial ones.
  const double capture_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  auto step = [&](const Batch& b) {
    ids.copy_(b.input_ids, /*non_blocking=*/true);
    mask.copy_(b.attention_mask, /*non_blocking=*/true);
    labels.copy_(b.labels, /*non_blocking=*/true);
    graph.replay();
    return StepOutput{loss_out, correct_out};
  };
  EvalForward eval = nullptr;
  if (precision != Precision::fp32)
    eval = [&](const Batch& b) {
      PrecisionAutocast autocast(device.type(), precision);
      return forward_loss(model, b);
    };
  auto loop = run_fine_tuning(model, loaders.refs(), loop_options(c, name, device), step, ctx.callbacks, eval);
  auto r = result_from_loop(name, loop, device, precision,
                            optimizer_label(optimizer, "capturable (device step counters)"));
  r.capture_time_s = capture_s;
  r.extra["padding"] = "max_length (forced: one static shape)";
  return r;
}
#endif

namespace {

constexpr const char* kName = "cuda_graph";

#ifdef FTB_WITH_CUDA
ScenarioResult run_cuda_graph(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  return run_captured_step(w, config, ctx, kName, Precision::fp32);
}
#endif

}  // namespace

ScenarioInfo cuda_graph_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "whole training step captured once in a CUDA graph and replayed (the reference's torch.compile row)";
  s.technique_settings = {RowSetting::optimizer};
  s.aliases = {"compiled"};
  s.stack = {"fused_adam", "graph"};  // the capturable Adam is the fused kernel
  s.unavailable = cuda_graph_unavailable;
#ifdef FTB_WITH_CUDA
  s.run = run_cuda_graph;
#endif
  return s;
}

}  // namespace ftb
