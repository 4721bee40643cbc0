#include "core/model/hf_config.h"

#include <fstream>
#include <type_traits>

#include "core/base/errors.h"

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

void read_distilbert_keys(const nlohmann::json& j, const std::string& where, ModelConfig& c) {
  c.n_layers = required_int(j, "n_layers", where);
  c.n_heads = required_int(j, "n_heads", where);
  c.dim = required_int(j, "dim", where);
  c.hidden_dim = required_int(j, "hidden_dim", where);
  c.dropout = optional_value(j, "dropout", c.dropout, where);
  c.attention_dropout = optional_value(j, "attention_dropout", c.attention_dropout, where);
  c.seq_classif_dropout = optional_value(j, "seq_classif_dropout", c.seq_classif_dropout, where);
  c.activation = optional_value(j, "activation", c.activation, where);
  c.sinusoidal_pos_embds = optional_value(j, "sinusoidal_pos_embds", c.sinusoidal_pos_embds, where);
}

void read_bert_keys(const nlohmann::json& j, const std::string& where, ModelConfig& c) {
  c.n_layers = required_int(j, "num_hidden_layers", where);
  c.n_heads = required_int(j, "num_attention_heads", where);
  c.dim = required_int(j, "hidden_size", where);
  c.hidden_dim = required_int(j, "intermediate_size", where);
  c.dropout = optional_value(j, "hidden_dropout_prob", c.dropout, where);
  c.attention_dropout = optional_value(j, "attention_probs_dropout_prob", c.attention_dropout, where);
  // BertForSequenceClassification: classifier_dropout, or hidden_dropout_prob when null.
  c.seq_classif_dropout = optional_value(j, "classifier_dropout", c.dropout, where);
  c.activation = optional_value(j, "hidden_act", c.activation, where);
  c.type_vocab_size = optional_value<int64_t>(j, "type_vocab_size", c.type_vocab_size, where);
  c.layer_norm_eps = optional_value(j, "layer_norm_eps", c.layer_norm_eps, where);
  const auto positions = optional_value<std::string>(j, "position_embedding_type", "absolute", where);
  if (positions != "absolute")
    input_error(where, "key \"position_embedding_type\" is \"" + positions + "\"; only \"absolute\" is supported");
}

}  // namespace

std::string architecture_name(ModelType t) {
  return t == ModelType::bert ? "BertForSequenceClassification" : "DistilBertForSequenceClassification";
}

ModelConfig config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) input_error(where, "config must be a JSON object");
  ModelConfig c;
  if (j.contains("model_type")) {
    if (!j.at("model_type").is_string()) input_error(where, "key \"model_type\" must be a string");
    const auto type = j.at("model_type").get<std::string>();
    const auto known = find_choice<ModelType>(type);
    if (!known) input_error(where, "key \"model_type\" is \"" + type + "\"; supported: " + choice_names<ModelType>(", "));
    c.type = *known;
  } else {
    c.type = j.contains("hidden_size") ? ModelType::bert : ModelType::distilbert;
  }
  c.vocab_size = required_int(j, "vocab_size", where);
  c.max_position_embeddings = required_int(j, "max_position_embeddings", where);
  if (c.type == ModelType::bert) read_bert_keys(j, where, c);
  else read_distilbert_keys(j, where, c);
  c.initializer_range = optional_value(j, "initializer_range", c.initializer_range, where);
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

void validate_config(const ModelConfig& c, const std::string& where) {
  auto positive = [&](int64_t v, const char* key) {
    if (v <= 0) input_error(where, std::string("\"") + key + "\" must be positive, got " + std::to_string(v));
  };
  const bool bert = c.type == ModelType::bert;
  positive(c.vocab_size, "vocab_size");
  positive(c.max_position_embeddings, "max_position_embeddings");
  positive(c.n_layers, bert ? "num_hidden_layers" : "n_layers");
  positive(c.n_heads, bert ? "num_attention_heads" : "n_heads");
  positive(c.dim, bert ? "hidden_size" : "dim");
  positive(c.hidden_dim, bert ? "intermediate_size" : "hidden_dim");
  positive(c.num_labels, "num_labels");
  if (bert) positive(c.type_vocab_size, "type_vocab_size");
  if (c.dim % c.n_heads != 0)
    input_error(where, std::string(bert ? "hidden_size " : "dim ") + std::to_string(c.dim) + " is not divisible by " +
                           (bert ? "num_attention_heads " : "n_heads ") + std::to_string(c.n_heads));
  if (c.activation != "gelu" && c.activation != "relu")
    input_error(where, std::string(bert ? "hidden_act" : "activation") + " \"" + c.activation +
                           "\" is not supported (gelu, relu)");
  if (c.sinusoidal_pos_embds)
    input_error(where, "sinusoidal_pos_embds=true is not supported (distilbert-base uses learned positions)");
  for (double p : {c.dropout, c.attention_dropout, c.seq_classif_dropout})
    if (p < 0 || p >= 1) input_error(where, "dropout probabilities must be in [0, 1)");
  if (!(c.layer_norm_eps > 0)) input_error(where, "\"layer_norm_eps\" must be positive");
  if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
    input_error(where, "pad_token_id is outside the vocabulary");
}

ModelConfig read_config(const std::string& path) {
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

nlohmann::json config_to_json(const ModelConfig& c) {
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (int64_t i = 0; i < c.num_labels; ++i) {
    id2label[std::to_string(i)] = "LABEL_" + std::to_string(i);
    label2id["LABEL_" + std::to_string(i)] = i;
  }
  nlohmann::json j = {
      {"vocab_size", c.vocab_size},
      {"max_position_embeddings", c.max_position_embeddings},
      {"initializer_range", c.initializer_range},
      {"pad_token_id", c.pad_token_id},
      {"id2label", id2label},
      {"label2id", label2id},
      {"torch_dtype", "float32"},
  };
  if (c.type == ModelType::bert) {
    j.update({
        {"architectures", {architecture_name(c.type)}},
        {"model_type", "bert"},
        {"num_hidden_layers", c.n_layers},
        {"num_attention_heads", c.n_heads},
        {"hidden_size", c.dim},
        {"intermediate_size", c.hidden_dim},
        {"hidden_act", c.activation},
        {"hidden_dropout_prob", c.dropout},
        {"attention_probs_dropout_prob", c.attention_dropout},
        {"classifier_dropout", c.seq_classif_dropout},
        {"type_vocab_size", c.type_vocab_size},
        {"layer_norm_eps", c.layer_norm_eps},
        {"position_embedding_type", "absolute"},
    });
    return j;
  }
  j.update({
      {"architectures", {architecture_name(c.type)}},
      {"model_type", "distilbert"},
      {"sinusoidal_pos_embds", c.sinusoidal_pos_embds},
      {"n_layers", c.n_layers},
      {"n_heads", c.n_heads},
      {"dim", c.dim},
      {"hidden_dim", c.hidden_dim},
      {"dropout", c.dropout},
      {"attention_dropout", c.attention_dropout},
      {"activation", c.activation},
      {"qa_dropout", 0.1},
      {"seq_classif_dropout", c.seq_classif_dropout},
  });
  return j;
}

}  // namespace ftb
