#include "core/base/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace ftb {
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

namespace {

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string format_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string format_percent(double share, const char* fmt) {
  return std::isfinite(share) ? format_double(fmt, 100 * share) : "-";
}

std::string wrap_text(const std::string& text, std::size_t width_limit, std::size_t indent) {
  std::istringstream in(text);
  std::string out, line, word;
  const std::string pad(indent, ' ');
  while (in >> word) {
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width_limit) {
      out += line + "\n";
      line = pad;
    }
    line += (line.empty() || line == pad ? "" : " ") + word;
  }
  return out + line;
}

std::string shortest_double(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_table(const std::vector<std::vector<std::string>>& input, const std::vector<bool>& right_aligned,
                         TableStyle style) {
  const bool md = style == TableStyle::markdown;
  std::vector<std::vector<std::string>> rows = input;
  size_t ncols = 0;
  for (auto& r : rows) {
    ncols = std::max(ncols, r.size());
    if (md)
      for (auto& c : r) c = markdown_cell(c);
  }
  for (auto& r : rows) r.resize(ncols);
  auto right = [&](size_t c) { return c < right_aligned.size() && right_aligned[c]; };
  std::vector<size_t> widths(ncols, md ? 3 : 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < ncols; ++c) widths[c] = std::max(widths[c], display_width(r[c]));
  auto pad = [&](const std::string& s, size_t c) {
    const std::string fill(widths[c] - display_width(s), ' ');
    return right(c) ? fill + s : s + fill;
  };
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    if (md) {
      out += "|";
      for (size_t c = 0; c < ncols; ++c) out += " " + pad(rows[k][c], c) + " |";
      out += "\n";
      if (k == 0) {
        out += "|";
        for (size_t c = 0; c < ncols; ++c)
          out += (right(c) ? " " + std::string(widths[c] - 1, '-') + ":" : " " + std::string(widths[c], '-')) + " |";
        out += "\n";
      }
      continue;
    }
    std::string line;
    for (size_t c = 0; c < ncols; ++c) {
      const bool last = c + 1 == ncols;
      line += (c ? "  " : "") + (last && !right(c) ? rows[k][c] : pad(rows[k][c], c));
    }
    out += line + "\n";
    if (k == 0) {
      size_t total = 0;
      for (auto w : widths) total += w + 2;
      out += std::string(std::min<size_t>(total, 120), '-') + "\n";
    }
  }
  return out;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ftb
