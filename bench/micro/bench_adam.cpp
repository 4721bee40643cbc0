// The Adam step over a DistilBERT's parameters with each kernel the
// optimizer factory offers (core/train/optimizer.h): loop (per-parameter ops,
// torch.optim.Adam's pick on CPU), foreach (multi-tensor ops), fused (one
// kernel; skipped with the reason where this LibTorch has none on the CPU).
// Counter: parameters updated per second.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "core/model/classifier.h"
#include "core/train/optimizer.h"

namespace {

// arg 0: kernel (0 loop, 1 foreach, 2 fused); arg 1: dim (layers: 2 at 128, 6 at 768).
void BM_AdamStep(benchmark::State& state) {
  const auto kernel = static_cast<ftb::AdamKernel>(state.range(0));
  if (kernel == ftb::AdamKernel::fused && !ftb::fused_adam_available(torch::kCPU)) {
    state.SkipWithError("this LibTorch has no fused Adam kernel on the CPU");
    return;
  }
  ftb::ModelConfig c;
  c.vocab_size = 30522;
  c.dim = state.range(1);
  c.n_heads = c.dim / 64;
  c.hidden_dim = 4 * c.dim;
  c.n_layers = c.dim >= 768 ? 6 : 2;
  torch::manual_seed(0);
  auto model = ftb::make_classifier(c);
  int64_t n = 0;
  for (auto& p : model->parameters()) {
    p.mutable_grad() = torch::randn_like(p) * 1e-3;
    n += p.numel();
  }
  auto adam = ftb::make_adam(model->parameters(), 5e-5, kernel);
  adam->step();  // warm-up: the state (exp_avg, exp_avg_sq) is allocated here
  for (auto _ : state) adam->step();
  state.SetLabel(ftb::to_string(kernel));
  state.counters["params"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AdamStep)
    ->ArgNames({"kernel", "dim"})
    ->ArgsProduct({{0, 1, 2}, {128, 768}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
