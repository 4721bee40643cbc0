// The shared training step and evaluation: every scenario calls these, so the
// difference between two rows of the table is the technique, not the math.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <utility>
#include <vector>

#include "core/train/batching.h"
#include "core/model/classifier.h"
#include "core/measure/precision.h"

namespace ftb {

// Detached device tensors: reading them (.item()) is the caller's sync point.
struct StepOutput {
  torch::Tensor loss;     // () mean cross-entropy of the batch
  torch::Tensor correct;  // () number of argmax hits
};

// Moves a batch to `device` (non_blocking: asynchronous from the loader's
// pinned batches when the step runs on a GPU; LoaderOptions::pin_memory).
Batch to_device(const Batch& b, const torch::Device& device);

// logits = model(ids, mask); loss = cross_entropy(logits, labels).
// Returns the loss with its graph (for backward) and the hits: (B) int64, 1
// where the argmax is the label (evaluate keeps them per example; a step
// sums them).
std::pair<torch::Tensor, torch::Tensor> forward_loss(SequenceClassifier& model,
                                                     const Batch& batch);

// How a scenario runs a forward pass (e.g. under autocast): loss and (B) hits.
using EvalForward = std::function<std::pair<torch::Tensor, torch::Tensor>(const Batch&)>;

// The forward of a precision: forward_loss under autocast for bf16/fp16
// (cast cache on: not for a captured graph, see scenarios/sync_free_step.h),
// plain for fp32. The loss is fp32 either way.
EvalForward autocast_forward(SequenceClassifier model, const torch::Device& device, Precision precision);

// Gradient accumulation (config accumulate=K). The loader yields one
// optimizer step's K*B examples; the step splits them here into K
// micro-batches of consecutive rows (B each when K divides the batch, else
// the first ones one row longer). Padded to max_length, a micro-batch keeps
// that length; padded to the longest row (Batch::row_tokens), each
// micro-batch is cut to its own longest row, as Lightning, HF Trainer and
// DeepSpeed pad each micro-batch of B (padding is masked, so K micro-batches
// still compute what one batch of K*B computes, within rounding). Each
// micro-batch's real_tokens is not counted (the loop counts the step's).
// K = 1 returns the batch itself. std::invalid_argument for K < 1 or K
// larger than the batch.
std::vector<Batch> split_micro_batches(const Batch& batch, int64_t k);
// The (rows, width) of each micro-batch split_micro_batches makes of
// `batch`, without making them (host only): what the step computes on, for
// the loop's record and the warm-up's shapes.
std::vector<std::pair<int64_t, int64_t>> micro_batch_shapes(const Batch& batch, int64_t k);
// The step's padded length as the device computed it: the batch's width, or
// with K > 1 the rows' mean of their micro-batch's width (rounded), so that
// samples x seq_len are the padded tokens computed (the loop's record).
int64_t computed_seq_len(const Batch& batch, int64_t k);

// What a row does with one micro-batch's scaled loss: its backward (loss
// scaling, a strategy's sync switch: `last` is true for the step's last
// micro-batch, the one whose backward reduces across ranks).
using MicroBackward = std::function<void(const torch::Tensor& scaled_loss, bool last)>;

// Forward and backward of each of the K micro-batches of `batch`, in order;
// micro-batch i's loss (its mean) is scaled by its share of the step's
// samples, n_i / n (1/K for equal micro-batches, as Lightning and HF Trainer
// scale), so the gradients add up to those of the whole batch's mean loss.
// Neither zero_grad nor the optimizer step: the caller's. Returns the step's
// loss (the samples' mean, detached) and hits. K = 1: one forward and one
// backward of the unscaled loss, the plain step's.
StepOutput accumulate_gradients(const Batch& batch, int64_t micro_batches, const EvalForward& forward,
                                const MicroBackward& backward);

// The reference's plain step: zero_grad, forward, backward, optimizer step;
// with micro_batches = K > 1 the forward and backward run per micro-batch
// (accumulate_gradients) before the one optimizer step.
StepOutput train_step(SequenceClassifier& model, torch::optim::Optimizer& optimizer,
                      const Batch& batch, int64_t micro_batches = 1);
// The same with the forward given: backward and the optimizer step run
// outside whatever the forward set up (autocast), as in Python.
StepOutput train_step(torch::optim::Optimizer& optimizer, const Batch& batch, const EvalForward& forward,
                      int64_t micro_batches = 1);

struct EvalResult {
  double loss = 0, acc = 0;
  int64_t samples = 0;
  // Which examples of the split the model got right, in the split's order
  // (issue 47: a paired test compares two models example by example). Kept
  // where asked and every example was scored (over all ranks); else empty.
  std::vector<bool> correct;
};
// Distributed runs: sums a float64 CPU tensor over ranks in place (metrics
// only; each rank evaluates its own shard). Empty = one process.
using SumAcrossRanks = std::function<void(torch::Tensor&)>;
// Eval mode, no grad, over the loader's epoch 0 (max_batches 0 = all); the
// model's training flag is restored afterwards. per_example: also keep
// EvalResult::correct (one more sum over ranks, of two doubles an example).
EvalResult evaluate(SequenceClassifier& model, BatchLoader& loader,
                    const torch::Device& device, int64_t max_batches,
                    const EvalForward& forward = nullptr, const SumAcrossRanks& sum_across_ranks = nullptr,
                    bool per_example = false);

}  // namespace ftb
