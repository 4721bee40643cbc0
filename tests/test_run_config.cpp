#include <doctest/doctest.h>

#include "core/base/errors.h"
#include "core/measure/precision.h"
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
  CHECK(paper.padding == ftb::Padding::max_length);
  CHECK(paper.seed == 123);
  CHECK_THROWS_AS(ftb::preset_config("nope"), ftb::InputError);
  // smoke on real reviews: one epoch at 256 tokens, batch 64 (its validation
  // accuracy peaks after the first); the other presets do not change.
  const auto reviews = ftb::preset_config("smoke", /*reviews=*/true);
  CHECK(reviews.max_length == 256);
  CHECK(reviews.epochs == 1);
  CHECK(reviews.batch_size == 64);
  CHECK(ftb::preset_config("smoke").max_length == 128);
  CHECK(ftb::preset_config("paper", true).max_length == paper.max_length);
}

TEST_CASE("run_config: quick, the default, is smoke on half the reviews, without dropout, 3 repeats") {
  CHECK(ftb::RunConfig{}.preset == "quick");
  const auto quick = ftb::preset_config("quick"), smoke = ftb::preset_config("smoke");
  CHECK(quick.repeats == 3);  // an interval on every speed-up
  CHECK(smoke.repeats == 1);
  CHECK(quick.dropout == 0);
  CHECK(smoke.dropout == doctest::Approx(0.1));
  CHECK(quick.synthetic_count == 3000);
  CHECK(smoke.synthetic_count == 6000);
  // the rest is smoke's: model, batch, length, epochs, learning rate
  CHECK(quick.dim == smoke.dim);
  CHECK(quick.n_layers == smoke.n_layers);
  CHECK(quick.batch_size == smoke.batch_size);
  CHECK(quick.max_length == smoke.max_length);
  CHECK(quick.epochs == smoke.epochs);
  CHECK(quick.lr == doctest::Approx(smoke.lr));
  // on real reviews it trains as smoke does on them
  const auto reviews = ftb::preset_config("quick", /*reviews=*/true);
  const auto smoke_reviews = ftb::preset_config("smoke", /*reviews=*/true);
  CHECK(reviews.max_length == 256);
  CHECK(reviews.batch_size == 64);
  CHECK(reviews.repeats == smoke_reviews.repeats);
  CHECK(reviews.dropout == doctest::Approx(smoke_reviews.dropout));
  CHECK(reviews.synthetic_count == smoke_reviews.synthetic_count);
}

TEST_CASE("run_config: overrides set typed keys, unknown keys and bad values name the key") {
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "epochs=7");
  ftb::apply_override(c, "lr=0.002");
  ftb::apply_override(c, "padding=max_length");
  ftb::apply_override(c, "scenarios=baseline,amp");
  CHECK(c.epochs == 7);
  CHECK(c.lr == doctest::Approx(0.002));
  CHECK(c.padding == ftb::Padding::max_length);
  CHECK(c.scenarios == std::vector<std::string>{"baseline", "amp"});
  try {
    ftb::apply_override(c, "epoch=3");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("epoch: unknown config key", 0) == 0);
  }
  CHECK_THROWS_AS(ftb::apply_override(c, "epochs=3x"), ftb::InputError);
  CHECK_THROWS_AS(ftb::apply_override(c, "epochs"), ftb::InputError);
  // A choice is checked where it is parsed, naming the key and every name.
  CHECK_THROWS_WITH_AS(ftb::apply_override(c, "padding=left"),
                       "padding: \"left\" is not one of max_length, longest", ftb::InputError);
}

TEST_CASE("run_config: bucketing needs padding=longest, and says so naming bucketing") {
  auto c = ftb::preset_config("paper");  // pads to max_length
  ftb::apply_override(c, "bucketing=on");
  CHECK_THROWS_WITH_AS(ftb::validate(c), doctest::Contains("bucketing: on needs padding=longest"), ftb::InputError);
  ftb::apply_override(c, "padding=longest");
  ftb::validate(c);
  CHECK_THROWS_WITH_AS(ftb::apply_override(c, "bucketing=yes"), "bucketing: \"yes\" is not one of off, on",
                       ftb::InputError);
}

// Fails on a config without the key (unknown key), or one that accepts 0
// (a step of no micro-batch) or a non-number.
TEST_CASE("run_config: accumulate is an integer >= 1, named when it is not") {
  auto c = ftb::preset_config("smoke");
  CHECK(c.accumulate == 1);
  ftb::apply_override(c, "accumulate=4");
  CHECK(c.accumulate == 4);
  ftb::validate(c);
  CHECK_THROWS_WITH_AS(ftb::apply_override(c, "accumulate=x"), doctest::Contains("accumulate: \"x\" is not a valid number"),
                       ftb::InputError);
  ftb::apply_override(c, "accumulate=0");
  CHECK_THROWS_WITH_AS(ftb::validate(c), doctest::Contains("accumulate: must be >= 1"), ftb::InputError);
}

TEST_CASE("run_config: the JSON form keeps numbers as numbers") {
  auto j = ftb::to_json(ftb::preset_config("paper"));
  CHECK(j.at("batch_size").is_number());
  CHECK(j.at("padding") == "max_length");
  CHECK(j.at("seed") == 123);
}

TEST_CASE("run_config: every key reaches the report with its real type") {
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "dp_precision=32");
  ftb::apply_override(c, "fabric_precision=16-mixed");
  const auto j = ftb::to_json(c);
  // integers stay integers, not 3.0
  for (const char* key : {"epochs", "batch_size", "seed", "limit", "synthetic_count", "world_size", "threads"}) {
    CAPTURE(key);
    CHECK(j.at(key).is_number_integer());
  }
  CHECK(j.at("lr").is_number_float());
  CHECK(j.at("bucket_mb").is_number_float());
  // a precision is a name in the report's spelling, never the number 32
  CHECK(j.at("dp_precision") == "fp32");
  CHECK(j.at("fabric_precision") == "fp16-mixed");
  CHECK(ftb::to_json(ftb::preset_config("smoke")).at("dp_precision") == "auto");
  CHECK(j.at("scenarios").is_array());
}

TEST_CASE("precision: one spelling inside, Lightning's names accepted at the edge") {
  using ftb::Precision;
  const auto parse = [](const char* text) { return ftb::parse_choice<Precision>(text, "k"); };
  CHECK(parse("32") == Precision::fp32);
  CHECK(parse("32-true") == Precision::fp32);
  CHECK(parse("fp32") == Precision::fp32);
  CHECK(parse("bf16-mixed") == Precision::bf16_mixed);
  CHECK(parse("16-mixed") == Precision::fp16_mixed);
  CHECK(parse("fp16-mixed") == Precision::fp16_mixed);
  CHECK(ftb::to_string(Precision::fp16_mixed) == "fp16-mixed");
  CHECK(nlohmann::json(Precision::bf16_mixed) == "bf16-mixed");
  CHECK(nlohmann::json("16-mixed").get<Precision>() == Precision::fp16_mixed);
  CHECK(!ftb::parse_setting<Precision>("auto", "k").has_value());
  try {
    ftb::parse_setting<Precision>("64", "dp_precision");
    FAIL("accepted");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind("dp_precision: \"64\" is not one of auto, fp32", 0) == 0);
  }
  auto c = ftb::preset_config("smoke");
  CHECK_THROWS_AS(ftb::apply_override(c, "fabric_precision=half"), ftb::InputError);
}

TEST_CASE("peak setting: measured, datasheet or a positive number, anything else names the key") {
  CHECK(ftb::parse_peak("measured").source == ftb::PeakSource::measured);
  CHECK(ftb::parse_peak("datasheet").source == ftb::PeakSource::datasheet);
  const auto given = ftb::parse_peak("989.4");
  CHECK(given.source == ftb::PeakSource::given);
  CHECK(given.tflops == doctest::Approx(989.4));
  for (const char* bad : {"", "fast", "0", "-5", "12x", "nan", "inf"}) {
    CAPTURE(bad);
    try {
      ftb::parse_peak(bad);
      FAIL("accepted");
    } catch (const ftb::InputError& e) {
      CHECK(std::string(e.what()).rfind("peak: ", 0) == 0);
    }
  }
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "peak=datasheet");
  CHECK(c.peak.source == ftb::PeakSource::datasheet);
  CHECK(ftb::to_string(c.peak) == "datasheet");
  ftb::apply_override(c, "peak=989.4");
  CHECK(ftb::to_string(c.peak) == "989.4");  // as given, in the report and the table
  CHECK_THROWS_AS(ftb::apply_override(c, "peak=oops"), ftb::InputError);
}
