// CSV: RFC 4180 round-trips of hostile review text, and errors that name the
// file and the line a user has to look at.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/text/text_data.h"
#include "tests/data_fixtures.h"

namespace fs = std::filesystem;
using ftb_test::TempDir;

namespace {

std::string error_of(const std::string& path) {
  try {
    ftb::read_csv(path);
  } catch (const ftb::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("csv: hostile text round-trips through write_csv and read_csv") {
  TempDir dir("csv");
  const std::vector<ftb::Example> in = {
      {"plain text", 1},
      {"comma, inside", 0},
      {"\"quoted\" and \"\"doubled\"\"", 1},
      {"line one\nline two\n\nline four", 0},
      {"windows\r\nline end\r\n", 1},
      {"unicode: caf\xC3\xA9 \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x8E\xAC", 0},
      {"  leading and trailing spaces  ", 1},
      {"", 0},
      {"\"", 1},
      {",", 0},
      {"<br /><br />IMDB markup, \"quotes\", and\ttabs", 1},
  };
  const std::string path = (dir.path / "round.csv").string();
  ftb::write_csv(path, in);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  const std::vector<ftb::Example> out = ftb::read_csv(path);
  REQUIRE(out.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i].text == in[i].text);
    CHECK(out[i].label == in[i].label);
  }
}

TEST_CASE("csv: reads pandas-style files, CRLF, any column order, extra columns") {
  TempDir dir("csv");
  SUBCASE("CRLF records and a quoted CRLF inside a field") {
    auto ex = ftb::read_csv(dir.file("a.csv", "text,label\r\nfine,1\r\n\"two\r\nlines\",0\r\n"));
    REQUIRE(ex.size() == 2);
    CHECK(ex[0].text == "fine");
    CHECK(ex[1].text == "two\r\nlines");
    CHECK(ex[1].label == 0);
  }
  SUBCASE("label first, an extra column, no final newline, UTF-8 BOM") {
    auto ex = ftb::read_csv(dir.file("b.csv", "\xEF\xBB\xBFlabel,id,text\n1,7,\"a, b\"\n0,8,c"));
    REQUIRE(ex.size() == 2);
    CHECK(ex[0].text == "a, b");
    CHECK(ex[0].label == 1);
    CHECK(ex[1].text == "c");
    CHECK(ex[1].label == 0);
  }
  SUBCASE("spaces are data, not padding") {
    auto ex = ftb::read_csv(dir.file("c.csv", "text,label\n  spaced  ,1\n"));
    REQUIRE(ex.size() == 1);
    CHECK(ex[0].text == "  spaced  ");
  }
}

TEST_CASE("csv: bad input is an InputError naming the file and the line") {
  TempDir dir("csv");
  auto expect = [&](const std::string& name, const std::string& bytes,
                    const std::string& line, const std::string& what) {
    const std::string path = dir.file(name, bytes);
    const std::string msg = error_of(path);
    CAPTURE(msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find(line) != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  };
  expect("label2.csv", "text,label\ngood,1\nodd,2\n", "line 3", "label must be 0 or 1");
  expect("labelpos.csv", "text,label\n\"multi\nline\",0\nok,pos\n", "line 4", "\"pos\"");
  expect("labelempty.csv", "text,label\nx,\n", "line 2", "label must be 0 or 1");
  // The record starting on line 3 never closes its quote.
  expect("unclosed.csv", "text,label\nfine,1\n\"runs on\nand on,0\n", "line 3", "unclosed quote");
  expect("junk.csv", "text,label\n\"closed\"junk,1\n", "line 2", "malformed");
  expect("nolabel.csv", "text,rating\nx,1\n", "line 1", "`label`");
  expect("notext.csv", "review,label\nx,1\n", "line 1", "`text`");
  expect("short.csv", "label,text\n1\n", "line 2", "text column is missing");
  expect("empty.csv", "", "", "empty CSV");
  CHECK(error_of((dir.path / "absent.csv").string()).find("cannot open") != std::string::npos);
}

TEST_CASE("csv: write_csv to an unwritable place names the file") {
  std::string msg;
  try {
    ftb::write_csv("/nonexistent-dir/x.csv", {{"a", 1}});
  } catch (const ftb::InputError& e) {
    msg = e.what();
  }
  CHECK(msg.find("/nonexistent-dir/x.csv") != std::string::npos);
}
