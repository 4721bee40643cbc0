// Model configuration of the BERT family, read from and written to a Hugging
// Face `config.json`. `model_type` picks the architecture and the key names:
// DistilBERT's (n_layers, n_heads, dim, hidden_dim, ...) or BERT's
// (num_hidden_layers, num_attention_heads, hidden_size, intermediate_size, ...).
// Inside, one struct with DistilBERT's field names holds either.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "core/base/choices.h"

namespace ftb {

enum class ModelType { distilbert, bert };
FTB_CHOICES(ModelType, {ModelType::distilbert, "distilbert"}, {ModelType::bert, "bert"});
// HF's class name: "DistilBertForSequenceClassification" / "BertForSequenceClassification".
std::string architecture_name(ModelType t);

struct ModelConfig {
  ModelType type = ModelType::distilbert;
  int64_t vocab_size = 30522;
  int64_t max_position_embeddings = 512;
  int64_t n_layers = 6;       // BERT: num_hidden_layers
  int64_t n_heads = 12;       // BERT: num_attention_heads
  int64_t dim = 768;          // C: model width (BERT: hidden_size)
  int64_t hidden_dim = 3072;  // FFN inner width (BERT: intermediate_size)
  double dropout = 0.1;            // BERT: hidden_dropout_prob
  double attention_dropout = 0.1;  // BERT: attention_probs_dropout_prob
  double seq_classif_dropout = 0.2;  // before the classifier (BERT: classifier_dropout, null = dropout)
  double initializer_range = 0.02;
  std::string activation = "gelu";  // BERT: hidden_act
  bool sinusoidal_pos_embds = false;
  int64_t pad_token_id = 0;
  int64_t num_labels = 2;
  int64_t type_vocab_size = 2;    // BERT only: token-type (segment) embeddings
  double layer_norm_eps = 1e-12;  // DistilBERT hard-codes 1e-12

  // The paper's model: distilbert-base-uncased with a 2-label head.
  static ModelConfig base_uncased() { return {}; }
};

// Shape keys (vocab_size, max_position_embeddings and the model type's names
// for layers, heads, width and FFN width) are required: a missing one is an
// InputError naming the key and `where`. The rest default as in transformers'
// DistilBertConfig / BertConfig. Without model_type the file's key names decide
// (hidden_size = bert); any model_type other than distilbert or bert is an
// InputError naming the key.
ModelConfig config_from_json(const nlohmann::json& j, const std::string& where);
ModelConfig read_config(const std::string& path);  // config.json
// The keys transformers needs to rebuild the model with from_pretrained.
nlohmann::json config_to_json(const ModelConfig& c);
// Checks the values are coherent (dim % n_heads == 0, sizes > 0, ...).
void validate_config(const ModelConfig& c, const std::string& where);

}  // namespace ftb
