// The history store's SQL schema, one statement text per version
// (reports/analysis/history.cpp migrates a file through them in order).
#pragma once

namespace ftb::history_sql {

constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  report_hash TEXT NOT NULL UNIQUE,
  machine TEXT NOT NULL,
  preset TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  time TEXT NOT NULL,
  source TEXT NOT NULL,
  added_at TEXT NOT NULL,
  report_json TEXT NOT NULL
);
CREATE INDEX runs_series ON runs (machine, preset, config_hash, time);
CREATE TABLE repeats (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  train_samples_per_s REAL NOT NULL,
  steady_samples_per_s REAL NOT NULL,
  wall_time_s REAL NOT NULL,
  step_ms_median REAL NOT NULL,
  test_acc REAL NOT NULL,
  peak_bytes INTEGER NOT NULL,
  PRIMARY KEY (run_id, scenario, repeat)
);
CREATE INDEX repeats_scenario ON repeats (scenario);
CREATE VIEW history AS
  SELECT r.machine, r.preset, r.config_hash, r.git_commit, r.time, s.*
  FROM repeats s JOIN runs r ON r.id = s.run_id;
)sql";

// Version 2: each run's environment and data hash beside its report.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE runs ADD COLUMN environment TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN data_hash TEXT;
)sql";

// Version 4: each repeat's per-example test hits (the report's
// samples[].test_correct: examples and base64 bits), NULL where not kept.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE repeats ADD COLUMN test_examples INTEGER;
ALTER TABLE repeats ADD COLUMN test_correct TEXT;
)sql";
// ... filled from each run's stored report (SQLite's JSON functions): the
// sample of that scenario and repeat index (a report that does not parse: NULL).
constexpr const char* kFillV4 = R"sql(
UPDATE repeats SET (test_examples, test_correct) = (
  SELECT json_extract(s.value, '$.test_correct.examples'), json_extract(s.value, '$.test_correct.base64')
  FROM runs r,
       json_each(CASE WHEN json_valid(r.report_json) THEN r.report_json ELSE '{}' END, '$.results') res,
       json_each(res.value, '$.samples') s
  WHERE r.id = repeats.run_id AND json_extract(res.value, '$.scenario') = repeats.scenario AND s.key = repeats.repeat);
)sql";

// Version 6: duet jobs (`ftbench duet`'s duet.json): tonight's build (side B)
// judged against a named reference (side A), pair by pair. One row per job
// and one per row of it: the ratio series beside the absolute levels.
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE duets (
  id INTEGER PRIMARY KEY,
  duet_hash TEXT NOT NULL UNIQUE,
  machine TEXT NOT NULL,
  preset TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  reference TEXT NOT NULL,
  reference_commit TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  mode TEXT NOT NULL,
  time TEXT NOT NULL,
  source TEXT NOT NULL,
  added_at TEXT NOT NULL,
  duet_json TEXT NOT NULL
);
CREATE TABLE duet_rows (
  duet_id INTEGER NOT NULL REFERENCES duets (id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  verdict TEXT NOT NULL,
  pairs INTEGER NOT NULL,
  log_ratio REAL,
  low REAL,
  high REAL,
  level REAL,
  sd_log_ratio REAL,
  PRIMARY KEY (duet_id, scenario)
);
CREATE INDEX duet_rows_scenario ON duet_rows (scenario);
)sql";

}  // namespace ftb::history_sql
