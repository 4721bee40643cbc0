#include "core/model/bert.h"

#include "core/model/compat.h"

namespace ftb {
namespace nn = torch::nn;

static nn::LayerNormOptions layer_norm_options(const ModelConfig& c) {
  return nn::LayerNormOptions({c.dim}).eps(c.layer_norm_eps);
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const ModelConfig& c) {
  word_embeddings = register_module(
      "word_embeddings", nn::Embedding(nn::EmbeddingOptions(c.vocab_size, c.dim).padding_idx(c.pad_token_id)));
  position_embeddings = register_module("position_embeddings", nn::Embedding(c.max_position_embeddings, c.dim));
  token_type_embeddings = register_module("token_type_embeddings", nn::Embedding(c.type_vocab_size, c.dim));
  LayerNorm = register_module("LayerNorm", nn::LayerNorm(layer_norm_options(c)));
  dropout = register_module("dropout", nn::Dropout(c.dropout));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor& input_ids) {
  const int64_t T = input_ids.size(1);
  auto positions = torch::arange(T, input_ids.options().dtype(torch::kLong));  // (T)
  // Every token is type 0: adding row 0 is HF's lookup of all-zero
  // token_type_ids (same value, same gradient), without a (B,T) gather.
  auto x = word_embeddings(input_ids) + position_embeddings(positions) + token_type_embeddings->weight[0];
  return dropout(LayerNorm(x));  // (B,T,C)
}

BertSelfAttentionImpl::BertSelfAttentionImpl(const ModelConfig& c) : n_heads(c.n_heads) {
  query = register_module("query", nn::Linear(c.dim, c.dim));
  key = register_module("key", nn::Linear(c.dim, c.dim));
  value = register_module("value", nn::Linear(c.dim, c.dim));
  dropout = register_module("dropout", nn::Dropout(c.attention_dropout));
}

torch::Tensor BertSelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_mask) {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2), D = C / n_heads;
  auto heads = [&](const torch::Tensor& t) {  // (B,T,C) -> (B,H,T,D)
    return t.view({B, T, n_heads, D}).transpose(1, 2);
  };
  // HF adds finfo.min to masked keys before the softmax: a boolean mask in
  // SDPA is the same computation (every row keeps at least [CLS]).
  auto ctx = compat::sdpa(heads(query(x)), heads(key(x)), heads(value(x)), key_mask,
                          is_training() ? dropout->options.p() : 0.0);  // (B,H,T,D)
  return ctx.transpose(1, 2).reshape({B, T, C});
}

BertResidualOutputImpl::BertResidualOutputImpl(const ModelConfig& c, int64_t in_features) {
  dense = register_module("dense", nn::Linear(in_features, c.dim));
  LayerNorm = register_module("LayerNorm", nn::LayerNorm(layer_norm_options(c)));
  dropout = register_module("dropout", nn::Dropout(c.dropout));
}

torch::Tensor BertResidualOutputImpl::forward(const torch::Tensor& h, const torch::Tensor& residual) {
  return LayerNorm(dropout(dense(h)) + residual);  // post-norm, as BERT
}

BertAttentionImpl::BertAttentionImpl(const ModelConfig& c) {
  self = register_module("self", BertSelfAttention(c));
  output = register_module("output", BertResidualOutput(c, c.dim));
}

torch::Tensor BertAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_mask) {
  return output(self(x, key_mask), x);
}

BertIntermediateImpl::BertIntermediateImpl(const ModelConfig& c) : gelu(c.activation == "gelu") {
  dense = register_module("dense", nn::Linear(c.dim, c.hidden_dim));
}

torch::Tensor BertIntermediateImpl::forward(const torch::Tensor& x) {
  auto h = dense(x);
  return gelu ? torch::gelu(h) : torch::relu(h);  // exact (erf) GELU, as HF's "gelu"
}

BertLayerImpl::BertLayerImpl(const ModelConfig& c) {
  attention = register_module("attention", BertAttention(c));
  intermediate = register_module("intermediate", BertIntermediate(c));
  output = register_module("output", BertResidualOutput(c, c.hidden_dim));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& key_mask) {
  auto h = attention(x, key_mask);       // (B,T,C)
  return output(intermediate(h), h);     // (B,T,F) -> (B,T,C)
}

BertEncoderImpl::BertEncoderImpl(const ModelConfig& c) {
  layer = register_module("layer", nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layer->push_back(BertLayer(c));
}

torch::Tensor BertEncoderImpl::forward(torch::Tensor x, const torch::Tensor& key_mask) {
  for (const auto& block : *layer) x = block->as<BertLayer>()->forward(x, key_mask);
  return x;
}

BertPoolerImpl::BertPoolerImpl(const ModelConfig& c) {
  dense = register_module("dense", nn::Linear(c.dim, c.dim));
}

torch::Tensor BertPoolerImpl::forward(const torch::Tensor& hidden) {
  return torch::tanh(dense(hidden.select(1, 0)));  // (B,C): the [CLS] token
}

BertModelImpl::BertModelImpl(const ModelConfig& c) {
  embeddings = register_module("embeddings", BertEmbeddings(c));
  encoder = register_module("encoder", BertEncoder(c));
  pooler = register_module("pooler", BertPooler(c));
}

torch::Tensor BertModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) {
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  auto key_mask = attention_mask.to(torch::kBool).view({B, 1, 1, T});
  return pooler(encoder(embeddings(input_ids), key_mask));
}

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const ModelConfig& c)
    : SequenceClassifierImpl(c) {
  bert = register_module("bert", BertModel(c));
  dropout = register_module("dropout", nn::Dropout(c.seq_classif_dropout));
  classifier = register_module("classifier", nn::Linear(c.dim, c.num_labels));
  init_weights();
}

torch::Tensor BertForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                         const torch::Tensor& attention_mask) {
  // Units (parameter_units): 0 embeddings, 1..n the layers, n+1 pooler + classifier.
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  auto key_mask = attention_mask.to(torch::kBool).view({B, 1, 1, T});
  auto& layers = *bert->encoder->layer;
  enter_unit(0);
  auto x = leave_unit(0, bert->embeddings(input_ids));
  for (size_t i = 0; i < layers.size(); ++i) {
    enter_unit(i + 1);
    x = leave_unit(i + 1, layers[i]->as<BertLayer>()->forward(x, key_mask));
  }
  enter_unit(layers.size() + 1);
  return leave_unit(layers.size() + 1, classifier(dropout(bert->pooler(x))));  // (B,L)
}

std::vector<std::vector<torch::Tensor>> BertForSequenceClassificationImpl::parameter_units() {
  std::vector<std::vector<torch::Tensor>> units;
  units.push_back(bert->embeddings->parameters());
  for (const auto& layer : *bert->encoder->layer) units.push_back(layer->parameters());
  auto head = bert->pooler->parameters();
  for (const auto& p : classifier->parameters()) head.push_back(p);
  units.push_back(head);
  return units;
}

bool BertForSequenceClassificationImpl::is_head_parameter(const std::string& name) const {
  return name.rfind("classifier.", 0) == 0 || name.rfind("bert.pooler.", 0) == 0;
}

}  // namespace ftb
