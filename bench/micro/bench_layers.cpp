// The encoder's parts, forward + backward on CPU, at the smoke width and at
// DistilBERT's: self-attention (4 projections + SDPA), the FFN, one whole
// encoder layer (attention, FFN, two LayerNorms). Counters: model FLOP/s of
// the matmuls (3x the forward's: backward computes two products per forward
// one), so runs compare as ratios and against the matmul peak (bench_step).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "core/model/distilbert.h"

namespace {

// args: dim, batch, seq. Heads of width 64 (DistilBERT's), FFN 4 x dim.
ftb::ModelConfig layer_config(int64_t dim) {
  ftb::ModelConfig c;
  c.dim = dim;
  c.n_heads = dim / 64 > 0 ? dim / 64 : 1;
  c.hidden_dim = 4 * dim;
  c.n_layers = 1;
  return c;
}

double attention_flops(int64_t B, int64_t T, int64_t C) {  // forward: projections + QK^T + PV
  return 2.0 * B * T * C * C * 4 + 2.0 * B * T * T * C * 2;
}
double ffn_flops(int64_t B, int64_t T, int64_t C, int64_t F) { return 2.0 * B * T * C * F * 2; }

struct Inputs {
  torch::Tensor x;         // (B,T,C), requires grad (so backward reaches the layer's input too)
  torch::Tensor key_mask;  // (B,1,1,T) bool, every key attended
};
Inputs inputs(int64_t B, int64_t T, int64_t C) {
  torch::manual_seed(0);
  return {torch::randn({B, T, C}).requires_grad_(true), torch::ones({B, 1, 1, T}, torch::kBool)};
}

// Forward, then backward of the output's sum; gradients are freed each time.
template <typename Forward>
void forward_backward(benchmark::State& state, torch::nn::Module& m, Forward&& forward, double flops) {
  m.train();
  forward().sum().backward();  // warm-up
  for (auto _ : state) {
    m.zero_grad();
    auto y = forward();
    y.sum().backward();
    benchmark::DoNotOptimize(y);
  }
  state.counters["model_flops"] = benchmark::Counter(3 * flops, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_AttentionFwdBwd(benchmark::State& state) {
  const int64_t C = state.range(0), B = state.range(1), T = state.range(2);
  ftb::MultiHeadSelfAttention attn(layer_config(C));
  auto in = inputs(B, T, C);
  forward_backward(state, *attn, [&] { return attn->forward(in.x, in.key_mask); }, attention_flops(B, T, C));
}

void BM_FFNFwdBwd(benchmark::State& state) {
  const int64_t C = state.range(0), B = state.range(1), T = state.range(2);
  const auto c = layer_config(C);
  ftb::FFN ffn(c);
  auto in = inputs(B, T, C);
  forward_backward(state, *ffn, [&] { return ffn->forward(in.x); }, ffn_flops(B, T, C, c.hidden_dim));
}

void BM_EncoderLayerFwdBwd(benchmark::State& state) {
  const int64_t C = state.range(0), B = state.range(1), T = state.range(2);
  const auto c = layer_config(C);
  ftb::TransformerBlock layer(c);
  auto in = inputs(B, T, C);
  forward_backward(state, *layer, [&] { return layer->forward(in.x, in.key_mask); },
                   attention_flops(B, T, C) + ffn_flops(B, T, C, c.hidden_dim));
}

// The smoke preset's width (128, batch 16 x 128 tokens) and DistilBERT's (768, 4 x 256).
#define FTB_LAYER_ARGS ->Args({128, 16, 128})->Args({768, 4, 256})->Unit(benchmark::kMillisecond)
BENCHMARK(BM_AttentionFwdBwd) FTB_LAYER_ARGS;
BENCHMARK(BM_FFNFwdBwd) FTB_LAYER_ARGS;
BENCHMARK(BM_EncoderLayerFwdBwd) FTB_LAYER_ARGS;
#undef FTB_LAYER_ARGS

}  // namespace
