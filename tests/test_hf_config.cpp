#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "core/base/errors.h"
#include "core/model/hf_config.h"

TEST_CASE("hf_config: reads HF keys and round-trips through config_to_json") {
  auto j = ftb::config_to_json(ftb::ModelConfig::base_uncased());
  auto c = ftb::config_from_json(j, "config.json");
  CHECK(c.dim == 768);
  CHECK(c.n_layers == 6);
  CHECK(c.n_heads == 12);
  CHECK(c.hidden_dim == 3072);
  CHECK(c.vocab_size == 30522);
  CHECK(c.num_labels == 2);
  CHECK(c.seq_classif_dropout == doctest::Approx(0.2));
}

TEST_CASE("hf_config: a missing shape key is an error naming the key and file") {
  auto j = ftb::config_to_json(ftb::ModelConfig::base_uncased());
  j.erase("n_heads");
  try {
    ftb::config_from_json(j, "m/config.json");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "m/config.json: missing key \"n_heads\"");
  }
}

TEST_CASE("hf_config: incoherent values are rejected") {
  auto j = ftb::config_to_json(ftb::ModelConfig::base_uncased());
  j["n_heads"] = 7;
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
  j["n_heads"] = 12;
  j["dim"] = "768";
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
  j["dim"] = 768;
  j["dropout"] = 1.5;
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
}

TEST_CASE("hf_config: BERT's keys, and model_type picks the architecture") {
  auto base = ftb::ModelConfig::base_uncased();
  base.type = ftb::ModelType::bert;
  base.layer_norm_eps = 1e-7;
  base.seq_classif_dropout = 0.1;
  auto j = ftb::config_to_json(base);
  CHECK(j["model_type"] == "bert");
  CHECK(j["architectures"][0] == "BertForSequenceClassification");
  CHECK(j["hidden_size"] == 768);
  CHECK_FALSE(j.contains("dim"));
  auto c = ftb::config_from_json(j, "config.json");
  CHECK(c.type == ftb::ModelType::bert);
  CHECK(c.dim == 768);
  CHECK(c.n_layers == 6);
  CHECK(c.hidden_dim == 3072);
  CHECK(c.layer_norm_eps == doctest::Approx(1e-7));
  // classifier_dropout null: hidden_dropout_prob, as BertForSequenceClassification.
  j["classifier_dropout"] = nullptr;
  j["hidden_dropout_prob"] = 0.15;
  CHECK(ftb::config_from_json(j, "c").seq_classif_dropout == doctest::Approx(0.15));
  // Without model_type, BERT's key names say which it is.
  j.erase("model_type");
  CHECK(ftb::config_from_json(j, "c").type == ftb::ModelType::bert);
  j.erase("num_attention_heads");
  try {
    ftb::config_from_json(j, "m/config.json");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "m/config.json: missing key \"num_attention_heads\"");
  }
}

TEST_CASE("hf_config: a model_type other than distilbert or bert is a one-line error naming the key") {
  auto j = ftb::config_to_json(ftb::ModelConfig::base_uncased());
  j["model_type"] = "gpt2";
  try {
    ftb::config_from_json(j, "m/config.json");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "m/config.json: key \"model_type\" is \"gpt2\"; supported: distilbert, bert");
  }
}
