// The tiny run configuration the scenario tests share: a few steps of a
// 1-layer model on a 300-review synthetic corpus, on the CPU (< 2 s a run).
#pragma once

#include "core/train/run_config.h"

inline ftb::RunConfig tiny_config() {
  auto c = ftb::preset_config("smoke");
  c.synthetic_count = 300;
  c.vocab_size = 300;
  c.dim = 32, c.n_layers = 1, c.n_heads = 2, c.hidden_dim = 64;
  c.max_length = 48;
  c.batch_size = 8;
  c.epochs = 1;
  c.max_steps = 4;
  c.eval_max_batches = 2;
  c.warmup_steps = 1;
  c.device = "cpu";
  return c;
}

// The tiny run two layers wide enough that bf16 rounding shows (the
// mixed-precision tests).
inline ftb::RunConfig amp_tiny_config() {
  auto c = tiny_config();
  c.dim = 64, c.n_layers = 2, c.hidden_dim = 128;
  return c;
}

// The tiny run wider and longer, 2 steps profiled after 1 of warm-up (the
// profile-pass tests): a step of tens of ms, like the quick preset's, where
// host time between operators is a few percent of it (on tiny_config's 6 ms
// step it is ~20 %).
inline ftb::RunConfig profiled_config() {
  auto c = tiny_config();
  c.dim = 64, c.hidden_dim = 256;
  c.max_length = 128;
  c.batch_size = 32;
  c.synthetic_count = 400;
  c.profile = 2;
  c.warmup_steps = 1;
  return c;
}
