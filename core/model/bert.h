// BertForSequenceClassification in LibTorch, with Hugging Face's architecture
// and parameter names (bert.embeddings.*, bert.encoder.layer.N.*,
// bert.pooler.dense, classifier), so HF BERT-family checkpoints (BERT,
// MiniLM, ...) load by name and the folders we write load in from_pretrained.
// Single-sentence input: every token has token type 0, as HF without
// token_type_ids.
//
// Shape legend: B batch, T sequence length, C model width (hidden_size), H
// heads, D = C / H head width, F FFN width (intermediate_size), V vocabulary,
// L labels.
#pragma once

#include <torch/torch.h>

#include "core/model/classifier.h"
#include "core/model/hf_config.h"

namespace ftb {

struct BertEmbeddingsImpl : torch::nn::Module {
  explicit BertEmbeddingsImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids);  // (B,T) -> (B,T,C)

  torch::nn::Embedding word_embeddings{nullptr};        // (V, C), padding_idx row frozen
  torch::nn::Embedding position_embeddings{nullptr};    // (max_pos, C)
  torch::nn::Embedding token_type_embeddings{nullptr};  // (type_vocab_size, C); row 0 used
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(BertEmbeddings);

struct BertSelfAttentionImpl : torch::nn::Module {
  explicit BertSelfAttentionImpl(const ModelConfig& c);
  // x (B,T,C), key_mask (B,1,1,T) bool (true = attend) -> context (B,T,C)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_mask);

  int64_t n_heads;
  torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};  // (C, C)
  torch::nn::Dropout dropout{nullptr};  // attention_probs_dropout_prob, applied by SDPA
};
TORCH_MODULE(BertSelfAttention);

// dense, dropout, then LayerNorm(h + residual): BertSelfOutput and BertOutput.
struct BertResidualOutputImpl : torch::nn::Module {
  BertResidualOutputImpl(const ModelConfig& c, int64_t in_features);
  torch::Tensor forward(const torch::Tensor& h, const torch::Tensor& residual);  // -> (B,T,C)

  torch::nn::Linear dense{nullptr};  // (C, in_features)
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(BertResidualOutput);

struct BertAttentionImpl : torch::nn::Module {
  explicit BertAttentionImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_mask);

  BertSelfAttention self{nullptr};
  BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertAttention);

struct BertIntermediateImpl : torch::nn::Module {
  explicit BertIntermediateImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,F)

  bool gelu;
  torch::nn::Linear dense{nullptr};  // (F, C)
};
TORCH_MODULE(BertIntermediate);

struct BertLayerImpl : torch::nn::Module {
  explicit BertLayerImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_mask);

  BertAttention attention{nullptr};
  BertIntermediate intermediate{nullptr};
  BertResidualOutput output{nullptr};  // (C, F) dense
};
TORCH_MODULE(BertLayer);

struct BertEncoderImpl : torch::nn::Module {
  explicit BertEncoderImpl(const ModelConfig& c);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& key_mask);

  torch::nn::ModuleList layer{nullptr};  // num_hidden_layers x BertLayer
};
TORCH_MODULE(BertEncoder);

struct BertPoolerImpl : torch::nn::Module {
  explicit BertPoolerImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden);  // (B,T,C) -> tanh(dense(first token)) (B,C)

  torch::nn::Linear dense{nullptr};  // (C, C)
};
TORCH_MODULE(BertPooler);

struct BertModelImpl : torch::nn::Module {
  explicit BertModelImpl(const ModelConfig& c);
  // input_ids (B,T), attention_mask (B,T) (1 = token) -> pooled (B,C)
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);

  BertEmbeddings embeddings{nullptr};
  BertEncoder encoder{nullptr};
  BertPooler pooler{nullptr};
};
TORCH_MODULE(BertModel);

// Built by make_classifier (core/model/classifier.h) for model_type bert.
struct BertForSequenceClassificationImpl : SequenceClassifierImpl {
  explicit BertForSequenceClassificationImpl(const ModelConfig& c);
  // -> logits (B, L), from the pooled [CLS] token.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) override;
  std::string body_prefix() const override { return "bert."; }
  bool is_head_parameter(const std::string& name) const override;
  std::vector<std::vector<torch::Tensor>> parameter_units() override;

  BertModel bert{nullptr};
  torch::nn::Dropout dropout{nullptr};    // classifier_dropout (null: hidden_dropout_prob)
  torch::nn::Linear classifier{nullptr};  // (L, C)
};

}  // namespace ftb
