#include "core/model/distilbert.h"


#include "core/model/compat.h"

namespace ftb {
namespace nn = torch::nn;

// HF DistilBERT uses eps=1e-12 for every LayerNorm.
static nn::LayerNormOptions layer_norm_options(int64_t dim) {
  return nn::LayerNormOptions({dim}).eps(1e-12);
}

EmbeddingsImpl::EmbeddingsImpl(const ModelConfig& c) {
  word_embeddings = register_module(
      "word_embeddings",
      nn::Embedding(nn::EmbeddingOptions(c.vocab_size, c.dim).padding_idx(c.pad_token_id)));
  position_embeddings = register_module(
      "position_embeddings", nn::Embedding(c.max_position_embeddings, c.dim));
  LayerNorm = register_module("LayerNorm", nn::LayerNorm(layer_norm_options(c.dim)));
  dropout = register_module("dropout", nn::Dropout(c.dropout));
}

torch::Tensor EmbeddingsImpl::forward(const torch::Tensor& input_ids) {
  const int64_t T = input_ids.size(1);
  auto positions = torch::arange(T, input_ids.options().dtype(torch::kLong));  // (T)
  auto x = word_embeddings(input_ids) + position_embeddings(positions);      // (B,T,C)
  return dropout(LayerNorm(x));
}

MultiHeadSelfAttentionImpl::MultiHeadSelfAttentionImpl(const ModelConfig& c)
    : n_heads(c.n_heads) {
  q_lin = register_module("q_lin", nn::Linear(c.dim, c.dim));
  k_lin = register_module("k_lin", nn::Linear(c.dim, c.dim));
  v_lin = register_module("v_lin", nn::Linear(c.dim, c.dim));
  out_lin = register_module("out_lin", nn::Linear(c.dim, c.dim));
  dropout = register_module("dropout", nn::Dropout(c.attention_dropout));
}

namespace {

// Self-attention of the rows `xq` (B,Q,C) over all rows `x` (B,T,C) -> (B,Q,C).
// Q = T everywhere but in the last layer of the classifier (first_token_only).
torch::Tensor attend(MultiHeadSelfAttentionImpl& a, const torch::Tensor& xq, const torch::Tensor& x,
                     const torch::Tensor& key_mask) {
  const int64_t B = x.size(0), C = x.size(2), D = C / a.n_heads;
  auto heads = [&](const torch::Tensor& t) {  // (B,S,C) -> (B,H,S,D)
    return t.view({B, t.size(1), a.n_heads, D}).transpose(1, 2);
  };
  auto q = heads(a.q_lin(xq)), k = heads(a.k_lin(x)), v = heads(a.v_lin(x));
  // HF masks keys with finfo.min before the softmax; a boolean mask in SDPA
  // is the same computation (every row keeps at least [CLS]).
  auto ctx = compat::sdpa(q, k, v, key_mask, a.is_training() ? a.dropout->options.p() : 0.0);  // (B,H,Q,D)
  return a.out_lin(ctx.transpose(1, 2).reshape({B, xq.size(1), C}));
}

// One post-norm block for the rows `xq` of `x` (see attend).
torch::Tensor block_forward(TransformerBlockImpl& b, const torch::Tensor& xq, const torch::Tensor& x,
                            const torch::Tensor& key_mask) {
  auto h = b.sa_layer_norm(attend(*b.attention, xq, x, key_mask) + xq);  // post-norm, as DistilBERT
  return b.output_layer_norm(b.ffn(h) + h);
}

}  // namespace

torch::Tensor MultiHeadSelfAttentionImpl::forward(const torch::Tensor& x,
                                                  const torch::Tensor& key_mask) {
  return attend(*this, x, x, key_mask);
}

FFNImpl::FFNImpl(const ModelConfig& c) : gelu(c.activation == "gelu") {
  lin1 = register_module("lin1", nn::Linear(c.dim, c.hidden_dim));
  lin2 = register_module("lin2", nn::Linear(c.hidden_dim, c.dim));
  dropout = register_module("dropout", nn::Dropout(c.dropout));
}

torch::Tensor FFNImpl::forward(const torch::Tensor& x) {
  auto h = lin1(x);                                  // (B,T,F)
  h = gelu ? torch::gelu(h) : torch::relu(h);        // exact (erf) GELU, as HF
  return dropout(lin2(h));                           // (B,T,C)
}

TransformerBlockImpl::TransformerBlockImpl(const ModelConfig& c) {
  attention = register_module("attention", MultiHeadSelfAttention(c));
  sa_layer_norm = register_module("sa_layer_norm", nn::LayerNorm(layer_norm_options(c.dim)));
  ffn = register_module("ffn", FFN(c));
  output_layer_norm = register_module("output_layer_norm", nn::LayerNorm(layer_norm_options(c.dim)));
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& key_mask) {
  return block_forward(*this, x, x, key_mask);
}

TransformerImpl::TransformerImpl(const ModelConfig& c) {
  layer = register_module("layer", nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layer->push_back(TransformerBlock(c));
}

torch::Tensor TransformerImpl::forward(torch::Tensor x, const torch::Tensor& key_mask) {
  for (const auto& block : *layer) x = block->as<TransformerBlock>()->forward(x, key_mask);
  return x;
}

DistilBertModelImpl::DistilBertModelImpl(const ModelConfig& c) {
  embeddings = register_module("embeddings", Embeddings(c));
  transformer = register_module("transformer", Transformer(c));
}

torch::Tensor DistilBertModelImpl::forward(const torch::Tensor& input_ids,
                                           const torch::Tensor& attention_mask) {
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  auto key_mask = attention_mask.to(torch::kBool).view({B, 1, 1, T});
  return transformer(embeddings(input_ids), key_mask);
}

DistilBertForSequenceClassificationImpl::DistilBertForSequenceClassificationImpl(
    const ModelConfig& c)
    : SequenceClassifierImpl(c) {
  distilbert = register_module("distilbert", DistilBertModel(c));
  pre_classifier = register_module("pre_classifier", nn::Linear(c.dim, c.dim));
  classifier = register_module("classifier", nn::Linear(c.dim, c.num_labels));
  dropout = register_module("dropout", nn::Dropout(c.seq_classif_dropout));
  init_weights();
}

torch::Tensor DistilBertForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                               const torch::Tensor& attention_mask) {
  // The classifier reads the [CLS] row only, and in the last layer no other
  // row depends on another's output: that layer computes keys and values for
  // every row but queries, attention output and FFN for [CLS] alone. The
  // logits and every gradient are those of the full computation (the golden
  // tests against HF check it); the last layer's work drops by about 5/6.
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  auto key_mask = attention_mask.to(torch::kBool).view({B, 1, 1, T});
  // Units (parameter_units): 0 embeddings, 1..n the blocks, n+1 the head.
  auto& blocks = *distilbert->transformer->layer;
  enter_unit(0);
  auto x = leave_unit(0, distilbert->embeddings(input_ids));  // (B,T,C)
  for (size_t i = 0; i + 1 < blocks.size(); ++i) {
    enter_unit(i + 1);
    x = leave_unit(i + 1, blocks[i]->as<TransformerBlock>()->forward(x, key_mask));
  }
  auto& last = *blocks[blocks.size() - 1]->as<TransformerBlock>();
  enter_unit(blocks.size());
  auto pooled = leave_unit(blocks.size(), block_forward(last, x.narrow(1, 0, 1), x, key_mask).squeeze(1));  // (B,C): [CLS]
  enter_unit(blocks.size() + 1);
  pooled = dropout(torch::relu(pre_classifier(pooled)));
  return leave_unit(blocks.size() + 1, classifier(pooled));  // (B,L)
}

std::vector<std::vector<torch::Tensor>> DistilBertForSequenceClassificationImpl::parameter_units() {
  std::vector<std::vector<torch::Tensor>> units;
  units.push_back(distilbert->embeddings->parameters());
  for (const auto& block : *distilbert->transformer->layer) units.push_back(block->parameters());
  auto head = pre_classifier->parameters();
  for (const auto& p : classifier->parameters()) head.push_back(p);
  units.push_back(head);
  return units;
}

bool DistilBertForSequenceClassificationImpl::is_head_parameter(const std::string& name) const {
  return name.rfind("pre_classifier.", 0) == 0 || name.rfind("classifier.", 0) == 0;
}

}  // namespace ftb
