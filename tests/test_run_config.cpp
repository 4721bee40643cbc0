#include <doctest/doctest.h>

#include "core/text/errors.h"
#include "core/train/run_config.h"

TEST_CASE("run_config: presets resolve and validate") {
  for (const auto& name : ftb::preset_names()) {
    auto c = ftb::preset_config(name);
    CHECK(c.preset == name);
    CHECK_NOTHROW(ftb::validate(c));
  }
  auto paper = ftb::preset_config("paper");  // the reference's workload
  CHECK(paper.batch_size == 12);
  CHECK(paper.epochs == 3);
  CHECK(paper.lr == doctest::Approx(5e-5));
  CHECK(paper.max_length == 512);
  CHECK(paper.padding == "max_length");
  CHECK(paper.seed == 123);
  CHECK_THROWS_AS(ftb::preset_config("nope"), ftb::InputError);
}

TEST_CASE("run_config: overrides set typed keys; unknown keys and bad values name the key") {
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "epochs=7");
  ftb::apply_override(c, "lr=0.002");
  ftb::apply_override(c, "padding=max_length");
  ftb::apply_override(c, "scenarios=baseline,amp");
  CHECK(c.epochs == 7);
  CHECK(c.lr == doctest::Approx(0.002));
  CHECK(c.padding == "max_length");
  CHECK(c.scenarios == std::vector<std::string>{"baseline", "amp"});
  try {
    ftb::apply_override(c, "epoch=3");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("epoch: unknown config key", 0) == 0);
  }
  CHECK_THROWS_AS(ftb::apply_override(c, "epochs=3x"), ftb::InputError);
  CHECK_THROWS_AS(ftb::apply_override(c, "epochs"), ftb::InputError);
  ftb::apply_override(c, "padding=left");
  CHECK_THROWS_AS(ftb::validate(c), ftb::InputError);
}

TEST_CASE("run_config: the JSON form keeps numbers as numbers") {
  auto j = ftb::to_json(ftb::preset_config("paper"));
  CHECK(j.at("batch_size").is_number());
  CHECK(j.at("padding") == "max_length");
  CHECK(j.at("seed") == 123);
}
