// The one model interface the training core uses: a sequence classifier of the
// BERT family (DistilBERT or BERT), with Hugging Face's parameter names, picked
// by ModelConfig::type. Scenarios, the step, the loop and checkpoints see only
// this; which architecture runs is the config's business.
//
// Shape legend: B batch, T sequence length, L labels.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/model/hf_config.h"

namespace ftb {

// Called around each unit's forward (the units of parameter_units()) when a
// model has them set: what ZeRO-3 / FSDP needs to gather a unit's
// parameters just before it computes and free them after
// (scenarios/parallel/fully_sharded.h). after_unit may return `out` with a
// backward hook registered on it (its gradient arrives just before the
// unit's backward).
class UnitHooks {
 public:
  virtual ~UnitHooks() = default;
  virtual void before_unit(std::size_t unit) = 0;
  virtual torch::Tensor after_unit(std::size_t unit, torch::Tensor out) = 0;
};

struct SequenceClassifierImpl : torch::nn::Module {
  explicit SequenceClassifierImpl(ModelConfig c) : config(std::move(c)) {}
  // input_ids (B,T) int64, attention_mask (B,T) int64/bool (1 = token) -> logits (B,L)
  virtual torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) = 0;
  // Prefix of the pre-trained body's parameters: "distilbert." or "bert.".
  virtual std::string body_prefix() const = 0;
  // Parameters a pre-trained body checkpoint may lack, freshly initialised
  // when fine-tuning starts (as from_pretrained does): the classification
  // head, and BERT's pooler (masked-LM checkpoints have none).
  virtual bool is_head_parameter(const std::string& name) const = 0;
  // HF's _init_weights: N(0, initializer_range) for Linear/Embedding weights,
  // zero biases and padding row, LayerNorm 1/0. Uses the global generator.
  void init_weights();
  // The parameters in forward order, one group per unit: the embeddings,
  // each transformer block, the head (with BERT's pooler). Every parameter
  // is in exactly one unit.
  virtual std::vector<std::vector<torch::Tensor>> parameter_units() = 0;

  ModelConfig config;
  UnitHooks* unit_hooks = nullptr;  // not owned; null = plain forward

 protected:
  void enter_unit(std::size_t unit) {
    if (unit_hooks) unit_hooks->before_unit(unit);
  }
  torch::Tensor leave_unit(std::size_t unit, torch::Tensor out) {
    return unit_hooks ? unit_hooks->after_unit(unit, std::move(out)) : out;
  }
};
TORCH_MODULE(SequenceClassifier);

// A fresh model of config.type with HF's initial weights.
SequenceClassifier make_classifier(const ModelConfig& config);

}  // namespace ftb
