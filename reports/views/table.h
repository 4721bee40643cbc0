// The speed-up table: one row per result, in report order. Pure functions of
// the report; the same text goes to table.md and to the terminal.
#pragma once

#include "reports/analysis/intervals.h"  // speedup_vs_baseline
#include "reports/record/report.h"

#include <optional>
#include <string>
#include <vector>

namespace ftb {

// The table's cells, before formatting: rows[0] is the header, right[c]
// right-aligns column c, notes is the text under the table. Markdown
// (table.md, the terminal) and HTML (index.html) are both made from it.
struct ResultTable {
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;
  std::string notes;
};
ResultTable speedup_table(const Report& report, const std::string& baseline = "baseline");

// A GitHub-flavoured Markdown table with columns padded so it also reads as
// plain text. Accuracies and MFU are fractions in the record, percent here.
// A failed row shows "-" for every measurement; skipped rows are not in the
// table but in the "Not run here" list under it; notes are numbered
// footnotes (numbered_notes).
std::string speedup_table_markdown(const Report& report, const std::string& baseline = "baseline");

// What the table says of a row beyond its figures, each note one sentence:
// why it was skipped or failed, the accuracy guard (!), settings beyond its
// technique (#), the batch it found, a samples/s speed-up (*).
std::vector<std::string> row_notes(const Report& report, const ScenarioResult& r,
                                   const std::string& baseline = "baseline");

// Every row's notes numbered once (the same text keeps one number), and the
// rows that did not run here (skipped) with their reasons: what the console
// table, table.md and index.html print under their tables.
struct NumberedNotes {
  std::vector<std::string> refs;       // per result, in report order: "[1,3]", or "" without notes
  std::vector<std::string> footnotes;  // footnotes[i] is note i + 1
  std::vector<std::string> not_run;    // "scenario: reason", one per skipped row
};
NumberedNotes numbered_notes(const Report& report, const std::string& baseline = "baseline");

}  // namespace ftb
