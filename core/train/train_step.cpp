#include "core/train/train_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/base/interrupt.h"
#include "core/train/autocast.h"
#include "core/measure/phase_recorder.h"

namespace ftb {

Batch to_device(const Batch& b, const torch::Device& device) {
  if (device.is_cpu()) return b;
  Batch out = b;
  out.input_ids = b.input_ids.to(device, /*non_blocking=*/true);
  out.attention_mask = b.attention_mask.to(device, /*non_blocking=*/true);
  out.labels = b.labels.to(device, /*non_blocking=*/true);
  return out;
}

std::pair<torch::Tensor, torch::Tensor> forward_loss(SequenceClassifier& model,
                                                     const Batch& batch) {
  PhaseScope phase(Phase::forward);
  auto logits = model->forward(batch.input_ids, batch.attention_mask);  // (B,L)
  // fp32 loss even when the forward ran in reduced precision (as autocast does).
  auto loss = torch::cross_entropy_loss(logits.to(torch::kFloat), batch.labels);
  auto hits = (logits.argmax(1) == batch.labels).to(torch::kLong);  // (B): 1 where right
  return {loss, hits};
}

EvalForward autocast_forward(SequenceClassifier model, const torch::Device& device, Precision precision) {
  return [model, type = device.type(), precision](const Batch& b) mutable {
    PrecisionAutocast autocast(type, precision);
    return forward_loss(model, b);  // loss is fp32 (forward_loss casts the logits)
  };
}

std::vector<std::pair<int64_t, int64_t>> micro_batch_shapes(const Batch& batch, int64_t k) {
  const int64_t n = batch.labels.size(0);
  if (k < 1 || k > n)
    throw std::invalid_argument("split_micro_batches: " + std::to_string(k) + " micro-batches of a batch of " +
                                std::to_string(n) + " (accumulate must be in 1..batch rows)");
  const int64_t full = batch.input_ids.size(1);
  if (k == 1) return {{n, full}};
  const bool own_longest = !batch.row_tokens.empty();  // padding=longest: each micro-batch to its own longest
  if (own_longest && static_cast<int64_t>(batch.row_tokens.size()) != n)
    throw std::invalid_argument("split_micro_batches: " + std::to_string(batch.row_tokens.size()) +
                                " row lengths for a batch of " + std::to_string(n) + " rows");
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t start = 0;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t rows = n / k + (i < n % k ? 1 : 0);
    int64_t width = full;
    if (own_longest) {
      const auto first = batch.row_tokens.begin() + start;
      width = std::min(full, std::max<int64_t>(1, *std::max_element(first, first + rows)));
    }
    out.emplace_back(rows, width);
    start += rows;
  }
  return out;
}

int64_t computed_seq_len(const Batch& batch, int64_t k) {
  const auto shapes = micro_batch_shapes(batch, k);
  if (shapes.size() == 1) return shapes.front().second;
  int64_t tokens = 0, rows = 0;
  for (const auto& [r, w] : shapes) {
    tokens += r * w;
    rows += r;
  }
  return (tokens + rows / 2) / rows;
}

std::vector<Batch> split_micro_batches(const Batch& batch, int64_t k) {
  const auto shapes = micro_batch_shapes(batch, k);  // checks k and the row lengths
  if (shapes.size() == 1) return {batch};
  std::vector<Batch> out;
  int64_t start = 0;
  for (const auto& [rows, width] : shapes) {
    Batch m;
    m.input_ids = batch.input_ids.narrow(0, start, rows);
    m.attention_mask = batch.attention_mask.narrow(0, start, rows);
    m.labels = batch.labels.narrow(0, start, rows);
    if (!batch.row_tokens.empty()) {
      const auto first = batch.row_tokens.begin() + start;
      m.row_tokens.assign(first, first + rows);
    }
    if (width < m.input_ids.size(1)) {  // contiguous, as a batch the loader padded to it
      m.input_ids = m.input_ids.narrow(1, 0, width).contiguous();
      m.attention_mask = m.attention_mask.narrow(1, 0, width).contiguous();
    }
    out.push_back(std::move(m));
    start += rows;
  }
  return out;
}

StepOutput accumulate_gradients(const Batch& batch, int64_t micro_batches, const EvalForward& forward,
                                const MicroBackward& backward) {
  if (micro_batches == 1) {
    auto [loss, hits] = forward(batch);
    backward(loss, /*last=*/true);
    return {loss.detach(), hits.sum()};
  }
  const auto micro = split_micro_batches(batch, micro_batches);
  const double n = static_cast<double>(batch.labels.size(0));
  torch::Tensor step_loss, step_correct;
  for (std::size_t i = 0; i < micro.size(); ++i) {
    const double share = static_cast<double>(micro[i].labels.size(0)) / n;
    auto [loss, hits] = forward(micro[i]);
    const auto correct = hits.sum();
    backward(loss * share, /*last=*/i + 1 == micro.size());
    // Device scalars: the step's mean loss and hits, read by the loop as the plain step's.
    const auto part = loss.detach() * share;
    step_loss = step_loss.defined() ? step_loss + part : part;
    step_correct = step_correct.defined() ? step_correct + correct : correct;
  }
  return {step_loss, step_correct};
}

StepOutput train_step(SequenceClassifier& model, torch::optim::Optimizer& optimizer,
                      const Batch& batch, int64_t micro_batches) {
  return train_step(optimizer, batch, [&](const Batch& b) { return forward_loss(model, b); }, micro_batches);
}

StepOutput train_step(torch::optim::Optimizer& optimizer, const Batch& batch, const EvalForward& forward,
                      int64_t micro_batches) {
  {
    PhaseScope phase(Phase::optimizer);
    optimizer.zero_grad();
  }
  const auto out = accumulate_gradients(batch, micro_batches, forward, [](const torch::Tensor& loss, bool) {
    PhaseScope phase(Phase::backward);
    loss.backward();
  });
  {
    PhaseScope phase(Phase::optimizer);
    optimizer.step();
  }
  return out;
}

namespace {
// Each scored example's hit at its place in the split, then summed over
// ranks: hits[i] > 0 where some rank got example i right (DistributedSampler's
// padding scores a few twice), seen[i] > 0 where some rank scored it.
std::vector<bool> per_example_hits(const std::vector<torch::Tensor>& batch_hits,
                                   const std::vector<std::vector<int64_t>>& rows, std::size_t split_size,
                                   const SumAcrossRanks& sum_across_ranks) {
  const auto n = static_cast<int64_t>(split_size);
  auto marks = torch::zeros({2, n}, torch::kDouble);  // row 0: hits, row 1: seen
  auto m = marks.accessor<double, 2>();
  std::size_t expected = 0;
  for (std::size_t b = 0; b < batch_hits.size(); ++b) {
    if (batch_hits[b].dim() != 1 || batch_hits[b].size(0) != static_cast<int64_t>(rows[b].size()))
      throw std::logic_error("evaluate: a forward's hits are not one per example of its batch");
    expected += rows[b].size();
  }
  // One copy from the device for the whole pass.
  const auto all = batch_hits.empty() ? torch::zeros({0}, torch::kLong)
                                      : torch::cat(batch_hits).to(torch::kCPU).to(torch::kLong).contiguous();
  if (static_cast<std::size_t>(all.numel()) != expected) throw std::logic_error("evaluate: hits lost on the way");
  const auto* h = all.data_ptr<int64_t>();
  for (std::size_t b = 0, at = 0; b < batch_hits.size(); ++b)
    for (const int64_t row : rows[b]) {
      m[0][row] += static_cast<double>(h[at++] != 0);
      m[1][row] += 1;
    }
  if (sum_across_ranks) sum_across_ranks(marks);
  std::vector<bool> correct(split_size);
  for (int64_t i = 0; i < n; ++i) {
    if (m[1][i] <= 0) return {};  // an example no rank scored (max_batches, drop_last)
    correct[static_cast<std::size_t>(i)] = m[0][i] > 0;
  }
  return correct;
}
}  // namespace

EvalResult evaluate(SequenceClassifier& model, BatchLoader& loader,
                    const torch::Device& device, int64_t max_batches, const EvalForward& forward,
                    const SumAcrossRanks& sum_across_ranks, bool per_example) {
  const bool was_training = model->is_training();
  model->eval();
  torch::NoGradGuard no_grad;
  // Accumulate on the device; one sync at the end.
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
  std::vector<torch::Tensor> batch_hits;  // on the device until the end
  int64_t samples = 0, batches = 0;
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    if (max_batches > 0 && batches == max_batches) break;
    throw_if_interrupted();  // between batches: a long evaluation stops too
    auto b = to_device(*batch, device);
    auto [loss, hits] = forward ? forward(b) : forward_loss(model, b);
    const int64_t n = b.labels.size(0);
    loss_sum += loss.to(torch::kDouble) * n;
    correct += hits.sum();
    if (per_example) batch_hits.push_back(hits);
    samples += n;
    ++batches;
  }
  model->train(was_training);
  auto totals = torch::tensor({loss_sum.item<double>(), static_cast<double>(correct.item<int64_t>()),
                               static_cast<double>(samples)},
                              torch::kDouble);
  if (sum_across_ranks) sum_across_ranks(totals);
  EvalResult r;
  r.samples = static_cast<int64_t>(totals[2].item<double>());
  if (r.samples > 0) {
    r.loss = totals[0].item<double>() / r.samples;
    r.acc = totals[1].item<double>() / r.samples;
  }
  if (per_example) r.correct = per_example_hits(batch_hits, loader.epoch_rows(), loader.split_size(), sum_across_ranks);
  return r;
}

}  // namespace ftb
