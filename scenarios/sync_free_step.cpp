#include "scenarios/sync_free_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/train/autocast.h"
#include "core/train/train_step.h"

namespace ftb {

SyncFreeStep::SyncFreeStep(SequenceClassifier model, FusedAdam& optimizer, Precision precision,
                           GradScalerOptions scaler_options)
    : model_(std::move(model)),
      optimizer_(optimizer),
      precision_(precision),
      scaler_([&] {
        scaler_options.enabled = precision == Precision::fp16_mixed;
        return scaler_options;
      }()),
      params_(model_->parameters()) {
  if (params_.empty()) throw std::invalid_argument("SyncFreeStep: the model has no parameters");
  skipped_ = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(params_.front().device()));
}

void SyncFreeStep::operator()(const Batch& batch, torch::Tensor& loss_out, torch::Tensor& correct_out) {
  optimizer_.zero_grad();  // in place: the grads keep their addresses
  torch::Tensor loss, correct;
  {
    // Autocast's weight-cast cache off: a cached cast made during capture
    // would be a graph-owned tensor outliving it (torch.autocast(...,
    // cache_enabled=False), which CUDA-graph capture requires).
    PrecisionAutocast autocast(batch.input_ids.device().type(), precision_, /*cache_enabled=*/false);
    std::tie(loss, correct) = forward_loss(model_, batch);  // the loss in fp32 (forward_loss casts the logits)
  }
  if (precision_ != Precision::fp16_mixed) {
    loss.backward();
    optimizer_.step();
  } else {
    scaler_.scale(loss).backward();
    std::vector<torch::Tensor> grads;
    grads.reserve(params_.size());
    for (const auto& p : params_) grads.push_back(p.grad());
    // Unscaled in place with found_inf recorded on the device; the fused
    // kernel skips the whole step where found_inf != 0 (and does not count it).
    auto found_inf = scaler_.unscale_grads_(grads);
    optimizer_.step({}, found_inf);
    skipped_.add_(found_inf.gt(0).to(torch::kLong));
    scaler_.update(found_inf);
  }
  torch::NoGradGuard no_grad;
  loss_out.copy_(loss.detach());
  correct_out.copy_(correct.sum());  // the batch's hits, counted
}

void SyncFreeStep::reset() {
  scaler_.reset_();
  skipped_.zero_();
}

int64_t SyncFreeStep::skipped_steps() const { return skipped_.item<int64_t>(); }

double SyncFreeStep::loss_scale() const {
  return precision_ == Precision::fp16_mixed ? scaler_.scale_value() : 1.0;
}

std::vector<int64_t> graph_lengths(int max_length, bool bucketing) {
  if (max_length < 1) throw std::invalid_argument("graph_lengths: max_length must be at least 1");
  std::vector<int64_t> out;
  if (bucketing)
    for (int64_t n = kGraphLengthStep; n < max_length; n += kGraphLengthStep) out.push_back(n);
  out.push_back(max_length);
  return out;
}

int64_t graph_length_for(const std::vector<int64_t>& lengths, int64_t length) {
  auto it = std::lower_bound(lengths.begin(), lengths.end(), length);
  if (it == lengths.end())
    throw std::out_of_range("graph_length_for: a batch of length " + std::to_string(length) +
                            " is longer than every captured graph");
  return *it;
}

void load_padded(const Batch& batch, torch::Tensor& ids, torch::Tensor& mask, torch::Tensor& labels,
                 int32_t pad_id) {
  const int64_t n = batch.input_ids.size(1), total = ids.size(1);
  if (n > total || batch.input_ids.size(0) != ids.size(0))
    throw std::invalid_argument("load_padded: a (" + std::to_string(batch.input_ids.size(0)) + ", " +
                                std::to_string(n) + ") batch does not fit buffers of (" +
                                std::to_string(ids.size(0)) + ", " + std::to_string(total) + ")");
  torch::NoGradGuard no_grad;
  ids.narrow(1, 0, n).copy_(batch.input_ids, /*non_blocking=*/true);
  mask.narrow(1, 0, n).copy_(batch.attention_mask, /*non_blocking=*/true);
  if (n < total) {
    ids.narrow(1, n, total - n).fill_(pad_id);
    mask.narrow(1, n, total - n).zero_();
  }
  labels.copy_(batch.labels, /*non_blocking=*/true);
}

}  // namespace ftb
