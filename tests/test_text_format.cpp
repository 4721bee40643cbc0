// core/base/text_format.h: the one CSV quoter, number formatter and table printer.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/base/json_text.h"
#include "core/base/text_format.h"

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

// core/base/errors.h and json_text.h: what keeps a user-facing message on one
// line and a written document writable whatever bytes reached it.
TEST_CASE("one_line escapes control characters and keeps the rest") {
  CHECK(one_line("plain: ü, \"q\"") == "plain: ü, \"q\"");
  CHECK(one_line("key 'a\nb': unknown") == "key 'a\\nb': unknown");
  CHECK(one_line("tab\there\r") == "tab\\there\\r");
  CHECK(one_line(std::string("nul\0esc\x1b", 8)) == "nul\\x00esc\\x1b");
}

TEST_CASE("json_text writes bytes that are not UTF-8 as U+FFFD instead of throwing") {
  const nlohmann::json j = {{"reason", std::string("bad \xff byte")}};
  CHECK_THROWS(j.dump());
  CHECK(json_text(j) == "{\"reason\":\"bad \xEF\xBF\xBD byte\"}");
  CHECK(json_text(j, 2) == "{\n  \"reason\": \"bad \xEF\xBF\xBD byte\"\n}");
}

TEST_CASE("wrap_text breaks at spaces within the width, continuation lines indented") {
  CHECK(ftb::wrap_text("aaa bbb ccc ddd", 7, 2) == "aaa bbb\n  ccc\n  ddd");
}

TEST_CASE("format_double formats one double through a printf format") {
  CHECK(ftb::format_double("%.2f", 1.005) == "1.00");  // binary 1.005 is below it
  CHECK(ftb::format_double("%+.1f", 2.25) == "+2.2");
}
