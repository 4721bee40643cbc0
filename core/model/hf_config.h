// DistilBERT configuration, read from and written to a Hugging Face
// `config.json` with HF's key names (n_layers, n_heads, dim, hidden_dim, ...).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace ftb {

struct DistilBertConfig {
  int64_t vocab_size = 30522;
  int64_t max_position_embeddings = 512;
  int64_t n_layers = 6;
  int64_t n_heads = 12;
  int64_t dim = 768;         // C: model width
  int64_t hidden_dim = 3072;  // FFN inner width
  double dropout = 0.1;
  double attention_dropout = 0.1;
  double seq_classif_dropout = 0.2;
  double initializer_range = 0.02;
  std::string activation = "gelu";
  bool sinusoidal_pos_embds = false;
  int64_t pad_token_id = 0;
  int64_t num_labels = 2;

  // The paper's model: distilbert-base-uncased with a 2-label head.
  static DistilBertConfig base_uncased() { return {}; }
};

// Shape keys (vocab_size, max_position_embeddings, n_layers, n_heads, dim,
// hidden_dim) are required: a missing one is an InputError naming the key and
// `where`. The rest default as in transformers' DistilBertConfig.
DistilBertConfig config_from_json(const nlohmann::json& j, const std::string& where);
DistilBertConfig read_config(const std::string& path);  // config.json
// The keys transformers needs to rebuild the model with from_pretrained.
nlohmann::json config_to_json(const DistilBertConfig& c);
// Checks the values are coherent (dim % n_heads == 0, sizes > 0, ...).
void validate_config(const DistilBertConfig& c, const std::string& where);

}  // namespace ftb
