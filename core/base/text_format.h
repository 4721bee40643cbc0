// Text formatting every output shares: shortest round-trip numbers, CSV
// fields, and aligned tables (plain for the terminal, Markdown for table.md).
// One implementation each; the reports, the trainer's CSV log and the CLI use
// them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ftb {

// Shortest text that reads back as the same double ("nan"/"inf" as such);
// Python's repr, which is also what Lightning's CSVLogger writes.
std::string shortest_double(double v);

// v through a printf format for one double ("%.2f", "%+.1f", "%.3g").
std::string format_double(const char* fmt, double v);

// A share as per cent through a printf format for 100 * share ("%+.1f %%":
// "+3.2 %"); "-" where the share is not finite.
std::string format_percent(double share, const char* fmt = "%+.1f %%");

// Now in UTC, ISO 8601 to the second ("2026-12-07T16:40:00Z"): sorts as text.
std::string utc_timestamp();

// Display width in code points (UTF-8 continuation bytes do not count): what
// wrap_text and format_table measure with.
std::size_t display_width(const std::string& s);

// `text` broken at spaces into lines of at most `width` code points (a word
// longer than that stands alone), each continuation line indented by `indent`.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent = 0);

// One RFC 4180 field: quoted (and inner quotes doubled) only when needed.
std::string csv_field(const std::string& s);

enum class TableStyle { plain, markdown };

// rows[0] is the header. right_aligned[c] right-aligns column c (missing =
// left). Width counts UTF-8 code points. Markdown: pipes escaped, line breaks
// turned into spaces, `---:` for right-aligned columns; plain: two spaces
// between columns, a dashed line under the header (at most 120 wide), the
// last column not padded.
std::string format_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned,
                         TableStyle style);

}  // namespace ftb
