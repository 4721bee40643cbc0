#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "core/text/errors.h"
#include "core/model/hf_config.h"

TEST_CASE("hf_config: reads HF keys and round-trips through config_to_json") {
  auto j = ftb::config_to_json(ftb::DistilBertConfig::base_uncased());
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
  auto j = ftb::config_to_json(ftb::DistilBertConfig::base_uncased());
  j.erase("n_heads");
  try {
    ftb::config_from_json(j, "m/config.json");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "m/config.json: missing key \"n_heads\"");
  }
}

TEST_CASE("hf_config: incoherent values are rejected") {
  auto j = ftb::config_to_json(ftb::DistilBertConfig::base_uncased());
  j["n_heads"] = 7;
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
  j["n_heads"] = 12;
  j["dim"] = "768";
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
  j["dim"] = 768;
  j["dropout"] = 1.5;
  CHECK_THROWS_AS(ftb::config_from_json(j, "c"), ftb::InputError);
}
