// CSV in the reference's format (pandas `to_csv(index=False)`: header
// `text,label`, RFC 4180 quoting). Parsing is libcsv's (Debian libcsv-dev) in
// strict mode; this file adds what libcsv does not know: which physical line a
// record starts on (for error messages), the header lookup and label checks.
#include <csv.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/limits.h"
#include "core/text/text_data.h"

namespace ftb {
namespace {

// RFC 4180 keeps spaces and tabs: they are part of the field. libcsv trims
// them from unquoted fields by default, which would change review text.
int no_space(unsigned char) { return 0; }

struct Record {
  std::vector<std::string> fields;
  std::size_t line = 0;  // physical line (1-based) where the record starts
};

struct ParseState {
  std::vector<std::string> fields;
  std::vector<Record> records;
  std::size_t line = 0;        // line being fed to the parser
  std::size_t row_start = 0;   // 0 = no record in progress
};

void on_field(void* data, std::size_t len, void* user) {
  auto* st = static_cast<ParseState*>(user);
  st->fields.emplace_back(static_cast<const char*>(data), len);
}

void on_row(int, void* user) {
  auto* st = static_cast<ParseState*>(user);
  st->records.push_back({std::move(st->fields), st->row_start ? st->row_start : st->line});
  st->fields.clear();
  st->row_start = 0;
}

// libcsv's parser state before the first byte of a record (ROW_NOT_BEGUN in
// csv.c). The struct is public; the value has been 0 since libcsv 1.0.
constexpr int kRowNotBegun = 0;

std::vector<Record> parse_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open CSV file: ") + std::strerror(errno));

  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
    input_error(path, "cannot initialise the CSV parser");
  csv_set_space_func(&parser, no_space);
  // libcsv grows a field's buffer by a fixed block (128 bytes by default)
  // with realloc: quadratic copying on a long field wherever realloc cannot
  // grow in place (under AddressSanitizer a 17 MiB field took minutes). 1 MiB
  // blocks bound it to 16 reallocations up to the line limit.
  csv_set_blk_size(&parser, std::size_t{1} << 20);
  struct Free {
    csv_parser* p;
    ~Free() { csv_free(p); }
  } free_parser{&parser};

  // Fed one physical line at a time so that every record and every error
  // knows its line number; a quoted field spanning lines simply continues.
  ParseState st;
  std::string line;
  auto too_long = [&] {
    input_error(path, "line " + std::to_string(st.line) + ": a line or field longer than the " +
                          limits::bytes_text(limits::kMaxLineBytes) + " limit (core/base/limits.h)");
  };
  for (LineRead got; (got = read_line(in, line, limits::kMaxLineBytes)) != LineRead::end;) {
    ++st.line;
    if (got == LineRead::too_long) too_long();
    if (!in.eof()) line.push_back('\n');
    if (st.line == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 BOM (Excel)
    std::size_t fed = csv_parse(&parser, line.data(), line.size(), on_field, on_row, &st);
    if (fed != line.size()) {
      if (csv_error(&parser) == CSV_EPARSE)
        input_error(path, "line " + std::to_string(st.line) + ": malformed CSV (a quote inside an"
                    " unquoted field, or text after a closing quote)");
      input_error(path, "line " + std::to_string(st.line) + ": " +
                  csv_strerror(csv_error(&parser)));
    }
    if (parser.pstate != kRowNotBegun && st.row_start == 0) st.row_start = st.line;
    // A quoted field spanning many short lines grows in libcsv's buffer.
    if (parser.entry_pos > limits::kMaxLineBytes) too_long();
  }
  if (in.bad()) input_error(path, "read error");
  if (csv_fini(&parser, on_field, on_row, &st) != 0)
    input_error(path, "line " + std::to_string(st.row_start ? st.row_start : st.line) +
                ": unclosed quote (the quoted field runs to the end of the file)");
  return std::move(st.records);
}

}  // namespace

std::vector<Example> read_csv(const std::string& path) {
  std::vector<Record> records = parse_records(path);
  if (records.empty()) input_error(path, "empty CSV file (expected a header with text,label)");

  const std::vector<std::string>& header = records[0].fields;
  int text_col = -1, label_col = -1;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "text" && text_col < 0) text_col = static_cast<int>(i);
    if (header[i] == "label" && label_col < 0) label_col = static_cast<int>(i);
  }
  if (text_col < 0 || label_col < 0)
    input_error(path, "line " + std::to_string(records[0].line) + ": header lacks column `" +
                (text_col < 0 ? "text" : "label") + "` (expected columns text,label)");
  const std::size_t needed = static_cast<std::size_t>(std::max(text_col, label_col)) + 1;

  std::vector<Example> out;
  out.reserve(records.size() - 1);
  for (std::size_t r = 1; r < records.size(); ++r) {
    const Record& rec = records[r];
    const std::string where = "line " + std::to_string(rec.line);
    if (rec.fields.size() < needed)
      input_error(path, where + ": " + std::to_string(rec.fields.size()) + " field(s), the " +
                  (static_cast<std::size_t>(label_col) >= rec.fields.size() ? "label" : "text") +
                  " column is missing");
    const std::string& label = rec.fields[label_col];
    // The reference writes 0/1; anything else (a rating, "pos") is a
    // different file layout and silently mapping it would train on garbage.
    if (label != "0" && label != "1")
      input_error(path, where + ": label must be 0 or 1, got \"" + label.substr(0, 40) + "\"");
    out.push_back({rec.fields[text_col], label == "1" ? 1 : 0});
  }
  return out;
}

void write_csv(const std::string& path, const std::vector<Example>& examples) {
  // write_file_atomic: a reader never sees a half-written split, and a failed
  // or interrupted write leaves the previous file intact.
  write_file_atomic(path, [&](std::ostream& out) {
    out << "text,label\n";
    std::string field;
    for (const Example& ex : examples) {
      // Minimal quoting, as pandas writes it: only fields that need it.
      const bool quote = ex.text.find_first_of(",\"\r\n") != std::string::npos ||
                         ex.text.empty() || ex.text.front() == ' ' || ex.text.back() == ' ';
      if (quote) {
        field.assign(1, '"');
        for (char c : ex.text) {
          if (c == '"') field.push_back('"');
          field.push_back(c);
        }
        field.push_back('"');
        out << field;
      } else {
        out << ex.text;
      }
      out << ',' << (ex.label ? '1' : '0') << '\n';
    }
  });
}

}  // namespace ftb
