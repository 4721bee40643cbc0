// cuda_graph: the reference's `torch.compile` row. LibTorch has no compiler;
// the C++ way to remove per-step launch overhead is to capture the whole
// training step (forward, backward, Adam) once in a CUDA graph and replay it.
//   - static shapes: sequences padded to max_length, drop_last batches; with
//     bucketing=on (the fastest row) one graph per bucket length instead
//     (multiples of 64 tokens, scenarios/sync_free_step.h), each batch padded
//     to the smallest that holds it, every graph in one memory pool;
//   - static buffers: each batch is copied into the captured input tensors;
//   - a step with no host sync (SyncFreeStep): FusedAdam keeps its step
//     counters on the device, and for fp16 (cuda_graph_fp16.cpp) the loss
//     scaler checks, skips and rescales on the device;
//   - warm-up on a side stream before capture (lazy init of cuBLAS, Adam
//     state, allocator), then the weights, the optimizer state and the loss
//     scale are restored, so training starts from the same point as baseline;
//   - capture time (warm-up included) is reported separately and excluded
//     from wall time, as the reference advises for compilation;
//   - with bf16/fp16 the forward runs under autocast with its weight-cast
//     cache off: a cached cast made during capture would be a tensor the
//     graph owns (as torch.autocast(..., cache_enabled=False)).
// Needs CUDA; on other machines the row is skipped with its reason.
#include "scenarios/cuda_graph.h"

#include "scenarios/capture_guard.h"

#include "core/model/attention.h"
#include "core/train/optimizer.h"
#include "core/measure/device.h"
#include "core/base/errors.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"
#include "scenarios/sync_free_step.h"

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

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
  return graph_accumulate_unavailable(c);
#endif
}

std::string graph_accumulate_unavailable(const RunConfig& c) {
  if (c.accumulate <= 1) return "";
  return "accumulate=" + std::to_string(c.accumulate) +
         " is not supported: the captured graph is one batch's whole step (forward, backward, Adam), not "
         "micro-batches with one optimizer step";
}

#ifdef FTB_WITH_CUDA
namespace {

// One captured step at one sequence length: its static inputs and its graph.
struct CapturedShape {
  torch::Tensor ids, mask, labels;
  at::cuda::CUDAGraph graph;
};

}  // namespace

int pool_use_count(c10::DeviceIndex device, at::cuda::MempoolId_t pool) noexcept {
  try {
    return c10::cuda::CUDACachingAllocator::getPoolUseCount(device, pool);
  } catch (...) {
    return 0;
  }
}

void abandon_capture(at::cuda::CUDAGraph& graph, c10::DeviceIndex device, int pool_uses_before) noexcept {
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
  // capture_end ends the capture and the pool's routing when the capture
  // is still valid; an invalidated capture makes it throw part way.
  try {
    graph.capture_end();
  } catch (...) {
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream, &partial);
    if (partial) (void)cudaGraphDestroy(partial);
  }
  try {  // throws when capture_end already ended it: nothing left to restore
    c10::cuda::CUDACachingAllocator::endAllocateToPool(device, graph.pool());
  } catch (...) {
  }
  (void)cudaGetLastError();  // the capture's error, not the next kernel's
  const auto pool = graph.pool();
  try {
    graph.reset();  // the partial graph; its pool only when the capture had ended
  } catch (...) {
  }
  try {  // the use capture_begin took, when reset did not give it back
    if (pool_use_count(device, pool) > pool_uses_before) c10::cuda::CUDACachingAllocator::releasePool(device, pool);
  } catch (...) {
  }
}

namespace {

using Shapes = std::map<int64_t, std::unique_ptr<CapturedShape>>;

// Static inputs (B, T) for every captured length.
Shapes static_shapes(const std::vector<int64_t>& lengths, int64_t batch, int32_t pad_id, const torch::Device& device) {
  auto long_opts = torch::TensorOptions().dtype(torch::kLong).device(device);
  Shapes shapes;
  for (auto n : lengths) {
    auto s = std::make_unique<CapturedShape>();
    s->ids = torch::full({batch, n}, pad_id, long_opts);
    s->mask = torch::ones({batch, n}, long_opts);
    s->labels = torch::zeros({batch}, long_opts);
    shapes[n] = std::move(s);
  }
  return shapes;
}

// On a side stream: every length warmed up off the capture (lazy init of
// cuBLAS, kernels per shape, Adam state, the allocator), the weights and the
// optimizer put back, then one graph per length captured into one pool.
// Throws, the capture ended and its graph discarded, when a capture fails.
void warm_up_and_capture(SequenceClassifier& model, FusedAdam& optimizer, SyncFreeStep& body, Shapes& shapes,
                         const std::function<void(CapturedShape&)>& run_body, const torch::Device& device) {
  std::vector<torch::Tensor> initial;
  for (const auto& p : model->parameters()) initial.push_back(p.detach().clone());
  // Order the side stream after the set-up above, and the default stream
  // after the captures, through events (what torch.cuda.stream() does).
  const c10::DeviceIndex device_index = device.index();  // resolve_device gives every CUDA device an index
  auto main_stream = c10::cuda::getCurrentCUDAStream(device_index);
  auto side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device_index);
  at::cuda::CUDAEvent ready;
  ready.record(main_stream);
  ready.block(side);
  c10::cuda::CUDAStreamGuard guard(side);
  for (auto& [n, s] : shapes)
    for (int i = 0; i < 3; ++i) run_body(*s);
  synchronize(device);
  {
    torch::NoGradGuard no_grad;
    auto params = model->parameters();
    for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(initial[i]);
  }
  optimizer.reset_state();
  body.reset();
  // Every graph in one memory pool: they replay one at a time on one stream
  // and keep nothing alive past their capture (the outputs are
  // preallocated), so the pool holds one step's activations, not one per
  // length. Longest first: its allocations size the pool.
  const auto pool = at::cuda::graph_pool_handle();
  for (auto it = shapes.rbegin(); it != shapes.rend(); ++it) {
    auto& graph = it->second->graph;
    const int pool_uses = pool_use_count(device_index, pool);
    try {
      guarded_capture([&] { graph.capture_begin(pool); }, [&] { run_body(*it->second); },
                      [&] { graph.capture_end(); }, [&] { abandon_capture(graph, device_index, pool_uses); });
    } catch (const std::exception& e) {
      // The stream is out of capture mode again: this row fails, the next rows run.
      throw std::runtime_error("CUDA-graph capture at length " + std::to_string(it->first) +
                               " failed (capture ended, graph discarded): " + first_line(e.what()));
    }
  }
  synchronize(device);
  at::cuda::CUDAEvent captured;
  captured.record(side);
  captured.block(main_stream);
}

// What the row reports beyond the loop: the attention kernel, the padding,
// the replays per captured length; fp16's loss scale.
void describe_captured_row(ScenarioResult& r, const std::string& attention, bool bucketing,
                           const std::vector<int64_t>& lengths, std::map<int64_t, int64_t>& replays,
                           const SyncFreeStep& body, Precision precision) {
  r.extra["attention_backend"] = attention;
  r.extra["attention_backend_why"] = "cuDNN attention switched off for capture";
  r.extra["padding"] = bucketing ? "longest, rounded up to a captured length (bucketing)"
                                 : "max_length (forced: one static shape)";
  nlohmann::json graphs = nlohmann::json::object();
  for (auto n : lengths) graphs[std::to_string(n)] = replays.count(n) ? replays[n] : 0;
  r.extra["graph_replays_by_length"] = graphs;  // captured lengths, replays of each over the run
  if (precision == Precision::fp16_mixed) {
    r.skipped_steps = body.skipped_steps();
    r.extra["loss_scale_final"] = body.loss_scale();
    r.extra["loss_scale_init"] = body.scaler_options().init_scale;
  }
}

}  // namespace

ScenarioResult run_captured_step(const Workload& w, const RunConfig& config, const ScenarioContext& ctx,
                                 const std::string& name, Precision precision) {
  RunConfig c = config;
  const bool bucketing = c.bucketing;
  if (!bucketing) c.padding = Padding::max_length;  // one static shape for every captured step
  const auto device = resolve_device(c.device == "auto" ? "cuda" : c.device);
  // The memory-efficient kernel captures; cuDNN's has been disabled under
  // capture in some PyTorch versions. Off for the whole row (warm-up,
  // capture, replay, evaluation), restored after it.
  const CudnnAttentionOff no_cudnn_attention;
  const std::string attention = attention_backend(w, c, device, precision);
  auto model = w.make_model();
  model->to(device);
  auto adam = make_device_adam(model->parameters(), c.lr, device);  // capturable: step counters on the device
  FusedAdam& optimizer = *adam;
  SyncFreeStep body(model, optimizer, precision);
  RunLoaders loaders(w, c);
  const int32_t pad_id = w.eval_loader_options(c).pad_id;
  reset_peak_memory(device);

  const auto lengths = graph_lengths(c.max_length, bucketing);
  Shapes shapes = static_shapes(lengths, c.batch_size, pad_id, device);
  // Outputs shared by every graph.
  torch::Tensor loss_out = torch::zeros({}, torch::TensorOptions().device(device));
  torch::Tensor correct_out = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
  auto run_body = [&](CapturedShape& s) { body(Batch{s.ids, s.mask, s.labels, 0}, loss_out, correct_out); };
  const auto t0 = std::chrono::steady_clock::now();
  warm_up_and_capture(model, optimizer, body, shapes, run_body, device);
  // Capture does not execute the step: the weights are still the initial ones.
  const double capture_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::map<int64_t, int64_t> replays;
  auto step = [&](const Batch& b) {
    const int64_t n = graph_length_for(lengths, b.input_ids.size(1));
    auto& s = *shapes.at(n);
    load_padded(b, s.ids, s.mask, s.labels, pad_id);
    s.graph.replay();
    ++replays[n];
    return StepOutput{loss_out, correct_out};
  };
  auto loop = run_fine_tuning(model, loaders.refs(), loop_options(c, name, device), step, ctx.callbacks,
                              autocast_forward(model, device, precision));
  auto r = result_from_loop(name, loop, device, precision,
                            optimizer_label(optimizer, "capturable (device step counters)"));
  r.capture_time_s = capture_s;
  describe_captured_row(r, attention, bucketing, lengths, replays, body, precision);
  return r;
}
#endif

ScenarioInfo captured_step_scenario(const std::string& name, Precision precision, std::string technique,
                                    std::vector<std::string> stack) {
  ScenarioInfo s;
  s.name = name;
  s.technique = std::move(technique);
  s.technique_settings = {RowSetting::optimizer};  // the capturable Adam is the fused kernel
  if (precision != Precision::fp32) s.technique_settings.push_back(RowSetting::precision);
  s.precision = precision;
  s.stack = std::move(stack);
  s.unavailable = cuda_graph_unavailable;
  s.replays_cuda_graphs = true;
#ifdef FTB_WITH_CUDA
  s.run = [name, precision](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_captured_step(w, c, ctx, name, precision);
  };
#endif
  return s;
}

ScenarioInfo cuda_graph_scenario() {
  auto s = captured_step_scenario(
      "cuda_graph", Precision::fp32,
      "whole training step captured once in a CUDA graph and replayed (the reference's torch.compile row)",
      {"fused_adam", "graph"});
  s.aliases = {"compiled"};
  return s;
}
FTB_REGISTER_SCENARIO(cuda_graph_scenario, 700);

}  // namespace ftb
