// DistilBertForSequenceClassification in LibTorch, with Hugging Face's
// architecture and parameter names, so HF checkpoints load by name and the
// checkpoints we write load in transformers' from_pretrained.
//
// Shape legend: B batch, T sequence length, C model width (dim), H heads,
// D = C / H head width, F FFN width (hidden_dim), V vocabulary, L labels.
#pragma once

#include <torch/torch.h>

#include "core/model/classifier.h"
#include "core/model/hf_config.h"

namespace ftb {

struct EmbeddingsImpl : torch::nn::Module {
  explicit EmbeddingsImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids);  // (B,T) -> (B,T,C)

  torch::nn::Embedding word_embeddings{nullptr};      // (V, C), padding_idx row frozen
  torch::nn::Embedding position_embeddings{nullptr};  // (max_pos, C)
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(Embeddings);

struct MultiHeadSelfAttentionImpl : torch::nn::Module {
  explicit MultiHeadSelfAttentionImpl(const ModelConfig& c);
  // x (B,T,C), key_mask (B,1,1,T) bool (true = attend) -> (B,T,C)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_mask);

  int64_t n_heads;
  torch::nn::Linear q_lin{nullptr}, k_lin{nullptr}, v_lin{nullptr}, out_lin{nullptr};  // (C, C)
  // As HF: a Dropout module holding attention_dropout; its p is what SDPA uses.
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(MultiHeadSelfAttention);

struct FFNImpl : torch::nn::Module {
  explicit FFNImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,C)

  bool gelu;
  torch::nn::Linear lin1{nullptr};  // (F, C)
  torch::nn::Linear lin2{nullptr};  // (C, F)
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(FFN);

struct TransformerBlockImpl : torch::nn::Module {
  explicit TransformerBlockImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_mask);

  MultiHeadSelfAttention attention{nullptr};
  torch::nn::LayerNorm sa_layer_norm{nullptr};
  FFN ffn{nullptr};
  torch::nn::LayerNorm output_layer_norm{nullptr};
};
TORCH_MODULE(TransformerBlock);

struct TransformerImpl : torch::nn::Module {
  explicit TransformerImpl(const ModelConfig& c);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& key_mask);

  torch::nn::ModuleList layer{nullptr};  // n_layers x TransformerBlock
};
TORCH_MODULE(Transformer);

struct DistilBertModelImpl : torch::nn::Module {
  explicit DistilBertModelImpl(const ModelConfig& c);
  // input_ids (B,T) int64, attention_mask (B,T) int64/bool (1 = token) -> (B,T,C)
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);

  Embeddings embeddings{nullptr};
  Transformer transformer{nullptr};
};
TORCH_MODULE(DistilBertModel);

// Built by make_classifier (core/model/classifier.h) for model_type distilbert.
struct DistilBertForSequenceClassificationImpl : SequenceClassifierImpl {
  explicit DistilBertForSequenceClassificationImpl(const ModelConfig& c);
  // -> logits (B, L), from the first ([CLS]) token.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) override;
  std::string body_prefix() const override { return "distilbert."; }
  bool is_head_parameter(const std::string& name) const override;
  std::vector<std::vector<torch::Tensor>> parameter_units() override;

  DistilBertModel distilbert{nullptr};
  torch::nn::Linear pre_classifier{nullptr};  // (C, C)
  torch::nn::Linear classifier{nullptr};      // (L, C)
  torch::nn::Dropout dropout{nullptr};        // seq_classif_dropout
};

}  // namespace ftb
