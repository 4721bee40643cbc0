#include "core/model/hf_config.h"

#include <fstream>
#include <type_traits>

#include "core/text/errors.h"

namespace ftb {
namespace {

int64_t required_int(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) input_error(where, std::string("missing key \"") + key + "\"");
  if (!j.at(key).is_number_integer())
    input_error(where, std::string("key \"") + key + "\" must be an integer");
  return j.at(key).get<int64_t>();
}

template <typename T>
T optional_value(const nlohmann::json& j, const char* key, T fallback, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  // Integer keys take JSON integers only: nlohmann converts 1e30 to int64_t
  // with undefined behaviour (found by tests/fuzz) and 1.5 by truncation.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (!j.at(key).is_number_integer()) input_error(where, std::string("key \"") + key + "\" must be an integer");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    input_error(where, std::string("key \"") + key + "\" has the wrong type");
  }
}

}  // namespace

DistilBertConfig config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) input_error(where, "config must be a JSON object");
  DistilBertConfig c;
  c.vocab_size = required_int(j, "vocab_size", where);
  c.max_position_embeddings = required_int(j, "max_position_embeddings", where);
  c.n_layers = required_int(j, "n_layers", where);
  c.n_heads = required_int(j, "n_heads", where);
  c.dim = required_int(j, "dim", where);
  c.hidden_dim = required_int(j, "hidden_dim", where);
  c.dropout = optional_value(j, "dropout", c.dropout, where);
  c.attention_dropout = optional_value(j, "attention_dropout", c.attention_dropout, where);
  c.seq_classif_dropout = optional_value(j, "seq_classif_dropout", c.seq_classif_dropout, where);
  c.initializer_range = optional_value(j, "initializer_range", c.initializer_range, where);
  c.activation = optional_value(j, "activation", c.activation, where);
  c.sinusoidal_pos_embds = optional_value(j, "sinusoidal_pos_embds", c.sinusoidal_pos_embds, where);
  c.pad_token_id = optional_value(j, "pad_token_id", c.pad_token_id, where);
  // HF stores the label count as id2label (num_labels is not serialised).
  if (j.contains("id2label") && j.at("id2label").is_object()) {
    c.num_labels = static_cast<int64_t>(j.at("id2label").size());
  } else {
    c.num_labels = optional_value<int64_t>(j, "num_labels", c.num_labels, where);
  }
  validate_config(c, where);
  return c;
}

void validate_config(const DistilBertConfig& c, const std::string& where) {
  auto positive = [&](int64_t v, const char* key) {
    if (v <= 0) input_error(where, std::string("\"") + key + "\" must be positive, got " + std::to_string(v));
  };
  positive(c.vocab_size, "vocab_size");
  positive(c.max_position_embeddings, "max_position_embeddings");
  positive(c.n_layers, "n_layers");
  positive(c.n_heads, "n_heads");
  positive(c.dim, "dim");
  positive(c.hidden_dim, "hidden_dim");
  positive(c.num_labels, "num_labels");
  if (c.dim % c.n_heads != 0)
    input_error(where, "dim " + std::to_string(c.dim) + " is not divisible by n_heads " +
                           std::to_string(c.n_heads));
  if (c.activation != "gelu" && c.activation != "relu")
    input_error(where, "activation \"" + c.activation + "\" is not supported (gelu, relu)");
  if (c.sinusoidal_pos_embds)
    input_error(where, "sinusoidal_pos_embds=true is not supported (distilbert-base uses learned positions)");
  for (double p : {c.dropout, c.attention_dropout, c.seq_classif_dropout})
    if (p < 0 || p >= 1) input_error(where, "dropout probabilities must be in [0, 1)");
  if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
    input_error(where, "pad_token_id is outside the vocabulary");
}

DistilBertConfig read_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) input_error(path, "cannot open config");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    input_error(path, std::string("invalid JSON: ") + e.what());
  }
  return config_from_json(j, path);
}

nlohmann::json config_to_json(const DistilBertConfig& c) {
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (int64_t i = 0; i < c.num_labels; ++i) {
    id2label[std::to_string(i)] = "LABEL_" + std::to_string(i);
    label2id["LABEL_" + std::to_string(i)] = i;
  }
  return {
      {"architectures", {"DistilBertForSequenceClassification"}},
      {"model_type", "distilbert"},
      {"vocab_size", c.vocab_size},
      {"max_position_embeddings", c.max_position_embeddings},
      {"sinusoidal_pos_embds", c.sinusoidal_pos_embds},
      {"n_layers", c.n_layers},
      {"n_heads", c.n_heads},
      {"dim", c.dim},
      {"hidden_dim", c.hidden_dim},
      {"dropout", c.dropout},
      {"attention_dropout", c.attention_dropout},
      {"activation", c.activation},
      {"initializer_range", c.initializer_range},
      {"qa_dropout", 0.1},
      {"seq_classif_dropout", c.seq_classif_dropout},
      {"pad_token_id", c.pad_token_id},
      {"id2label", id2label},
      {"label2id", label2id},
      {"torch_dtype", "float32"},
  };
}

}  // namespace ftb
