// core/base/choices.h: one table of names per enum, read at every edge.
#include <doctest/doctest.h>

#include <string>

#include "core/base/choices.h"
#include "core/base/errors.h"

namespace ftb {
enum class Colour { red, green };
FTB_CHOICES(Colour, {Colour::red, "red"}, {Colour::green, "green"}, {Colour::red, "rouge"});
}  // namespace ftb

using ftb::Colour;

TEST_CASE("choices: the first name prints, every name parses, others name the key and list all") {
  CHECK(ftb::to_string(Colour::red) == "red");
  CHECK(ftb::to_string(Colour::green) == "green");
  CHECK(ftb::parse_choice<Colour>("rouge", "colour") == Colour::red);
  CHECK(!ftb::find_choice<Colour>("Red").has_value());  // names are exact
  CHECK(ftb::choice_names<Colour>() == "red | green | rouge");
  try {
    ftb::parse_choice<Colour>("blue", "colour");
    FAIL("accepted an unknown name");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == "colour: \"blue\" is not one of red, green, rouge");
  }
}

TEST_CASE("choices: auto settings and JSON use the same table") {
  CHECK(!ftb::parse_setting<Colour>("auto", "colour").has_value());
  CHECK(ftb::parse_setting<Colour>("green", "colour") == Colour::green);
  CHECK(ftb::setting_to_string<Colour>(std::nullopt) == "auto");
  CHECK(ftb::setting_to_string(std::optional<Colour>(Colour::red)) == "red");
  CHECK_THROWS_WITH_AS(ftb::parse_setting<Colour>("blue", "colour"),
                       "colour: \"blue\" is not one of auto, red, green, rouge", ftb::InputError);
  CHECK(nlohmann::json(Colour::green) == "green");
  CHECK(nlohmann::json("rouge").get<Colour>() == Colour::red);
  CHECK_THROWS_AS(nlohmann::json("blue").get<Colour>(), ftb::InputError);
  CHECK_THROWS_AS(nlohmann::json(3).get<Colour>(), ftb::InputError);
}
