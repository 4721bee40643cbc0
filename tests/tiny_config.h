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
