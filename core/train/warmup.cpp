#include "core/train/warmup.h"

#include <algorithm>
#include <set>

#include "core/measure/device.h"
#include "core/train/optimizer.h"
#include "core/measure/records.h"
#include "core/train/train_step.h"

namespace ftb {

SequenceClassifier train_throwaway(const Workload& w, const RunConfig& c, const Batch& batch,
                                   const torch::Device& device, Precision precision, int steps, bool also_fused) {
  auto model = w.make_model();
  model->to(device);
  model->train();
  std::vector<std::unique_ptr<torch::optim::Adam>> optimizers;
  optimizers.push_back(make_adam(model->parameters(), c.lr, resolve_adam_kernel(c.adam, device)));
  if (also_fused && fused_adam_available(device))
    optimizers.push_back(make_adam(model->parameters(), c.lr, AdamKernel::fused));
  const auto forward = autocast_forward(model, device, precision);
  for (int i = 0; i < steps; ++i) train_step(*optimizers[static_cast<size_t>(i) % optimizers.size()], batch, forward);
  return model;
}

std::vector<int64_t> padded_lengths(const TokenizedSplit& split, LoaderOptions options, int epochs,
                                    int64_t max_batches, int64_t accumulate) {
  options.prefetch = 0;
  options.pin_memory = false;
  BatchLoader loader(split, options);
  std::set<int64_t> lengths;
  for (int e = 0; e < epochs; ++e) {
    loader.start_epoch(e);
    int64_t n = 0;
    while (auto b = loader.next()) {
      for (const auto& shape : micro_batch_shapes(*b, accumulate)) lengths.insert(shape.second);
      if (max_batches > 0 && ++n >= max_batches) break;
    }
  }
  return {lengths.begin(), lengths.end()};
}

namespace {

// A batch of `rows` x `length` tokens (every token real) on the device.
Batch synthetic_batch(int64_t rows, int64_t length, int64_t vocab, const torch::Device& device) {
  Batch b;
  const auto longs = torch::dtype(torch::kInt64).device(device);
  b.input_ids = torch::randint(vocab, {rows, length}, longs);
  b.attention_mask = torch::ones({rows, length}, longs);
  b.labels = torch::randint(2, {rows}, longs);
  b.real_tokens = rows * length;
  return b;
}

}  // namespace

WarmUp warm_up(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision, int steps) {
  WarmUp out;
  const auto t0 = Clock::now();
  auto options = w.train_loader_options(c);
  options.prefetch = 0;
  BatchLoader loader(w.train, options);
  loader.start_epoch(0);
  auto first = loader.next();
  if (!first) return out;
  // The shapes a step computes on: with accumulate=K, its first micro-batch.
  const Batch b = to_device(split_micro_batches(*first, c.accumulate).front(), device);
  auto model = train_throwaway(w, c, b, device, precision, steps, /*also_fused=*/true);
  {
    torch::NoGradGuard no_grad;
    model->eval();
    autocast_forward(model, device, precision)(b);
  }
  synchronize(device);
  const bool variable = options.padding == Padding::longest || options.bucketing;
  if (device.is_cuda() && variable) {
    const auto t1 = Clock::now();
    const int64_t vocab = w.model_config.vocab_size;
    const auto forward = autocast_forward(model, device, precision);
    const int64_t first_length = b.input_ids.size(1);  // the micro-batch warmed above
    model->train();
    for (int64_t n : padded_lengths(w.train, options, c.epochs, c.max_steps, c.accumulate)) {
      if (n == first_length) continue;
      const Batch shaped = synthetic_batch(c.batch_size, n, vocab, device);  // a micro-batch's rows
      forward(shaped).first.backward();  // the loss, fp32 either way
      model->zero_grad();
      ++out.lengths;
    }
    torch::NoGradGuard no_grad;
    model->eval();
    const auto eval_options = w.eval_loader_options(c);
    const int64_t eval_batches = c.eval_max_batches;
    auto eval_lengths = padded_lengths(w.val, eval_options, 1, eval_batches);
    for (int64_t n : padded_lengths(w.test, eval_options, 1, eval_batches)) eval_lengths.push_back(n);
    std::sort(eval_lengths.begin(), eval_lengths.end());
    eval_lengths.erase(std::unique(eval_lengths.begin(), eval_lengths.end()), eval_lengths.end());
    for (int64_t n : eval_lengths) {
      forward(synthetic_batch(eval_options.batch_size, n, vocab, device));
      ++out.lengths;
    }
    synchronize(device);
    out.lengths_s = seconds_since(t1);
  }
  out.seconds = seconds_since(t0);
  return out;
}

}  // namespace ftb
