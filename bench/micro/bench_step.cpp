// Micro-benchmarks of the training step's hot parts on CPU: one full step of
// a small DistilBERT (forward, backward, Adam) and the attention kernel, with
// model FLOP/s as a counter so runs compare as ratios, not seconds.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "core/model/compat.h"
#include "core/measure/flops.h"
#include "core/model/classifier.h"
#include "core/train/train_step.h"

namespace {

ftb::ModelConfig small_config(int64_t dim, int64_t layers) {
  ftb::ModelConfig c;
  c.vocab_size = 4000;
  c.dim = dim;
  c.n_heads = dim / 64 > 0 ? dim / 64 : 1;
  c.hidden_dim = 4 * dim;
  c.n_layers = layers;
  return c;
}

// args: dim, layers, batch, seq
void BM_TrainStep(benchmark::State& state) {
  auto c = small_config(state.range(0), state.range(1));
  const int64_t B = state.range(2), T = state.range(3);
  torch::manual_seed(0);
  auto model = ftb::make_classifier(c);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(5e-5));
  ftb::Batch b;
  b.input_ids = torch::randint(1, c.vocab_size, {B, T}, torch::kLong);
  b.attention_mask = torch::ones({B, T}, torch::kLong);
  b.labels = torch::randint(0, 2, {B}, torch::kLong);
  ftb::train_step(model, opt, b);  // warm-up: allocations, Adam state
  for (auto _ : state) benchmark::DoNotOptimize(ftb::train_step(model, opt, b).loss);
  state.counters["model_flops"] = benchmark::Counter(ftb::train_step_flops(c, B, T),
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.counters["samples"] = benchmark::Counter(static_cast<double>(B), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrainStep)->Args({128, 2, 16, 128})->Args({256, 2, 8, 256})->Args({768, 1, 2, 512})
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);

// args: batch*heads, seq, head dim
void BM_Attention(benchmark::State& state) {
  const int64_t BH = state.range(0), T = state.range(1), D = state.range(2);
  auto q = torch::randn({BH, 1, T, D}), k = torch::randn({BH, 1, T, D}), v = torch::randn({BH, 1, T, D});
  auto mask = torch::ones({BH, 1, 1, T}, torch::kBool);
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(ftb::compat::sdpa(q, k, v, mask, 0.0));
  state.counters["flops"] = benchmark::Counter(4.0 * BH * T * T * D, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Attention)->Args({24, 512, 64})->Args({48, 128, 64})->Unit(benchmark::kMillisecond);

// The fp32 matmul peak MFU is reported against.
void BM_MatmulPeak(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto a = torch::randn({n, n}), b = torch::randn({n, n}), c = torch::mm(a, b);
  for (auto _ : state) torch::mm_out(c, a, b);
  state.counters["flops"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MatmulPeak)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

}  // namespace
