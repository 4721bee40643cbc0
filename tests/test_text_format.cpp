// core/text/text_format.h: the one CSV quoter, number formatter and table printer.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/text/text_format.h"

using namespace ftb;

TEST_CASE("shortest_double round-trips") {
  CHECK(shortest_double(0.1) == "0.1");
  CHECK(shortest_double(5e-05) == "5e-05");
  CHECK(std::stod(shortest_double(1.0 / 3)) == 1.0 / 3);
  CHECK(shortest_double(std::nan("")) == "nan");
}

TEST_CASE("csv_field quotes only when needed") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("format_table: markdown escapes pipes and aligns numbers right") {
  const std::string t = format_table({{"name", "n"}, {"a|b", "7"}, {"ü", "12"}}, {false, true}, TableStyle::markdown);
  CHECK(t ==
        "| name |   n |\n"
        "| ---- | --: |\n"
        "| a\\|b |   7 |\n"
        "| ü    |  12 |\n");
}

TEST_CASE("format_table: plain has a dashed header line and no trailing pad") {
  const std::string t = format_table({{"key", "value"}, {"epochs", "3"}}, {}, TableStyle::plain);
  CHECK(t == "key     value\n---------------\nepochs  3\n");
}
