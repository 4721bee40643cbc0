#include "reports/analysis/history.h"
#include "reports/analysis/history_schema.h"
#include "reports/analysis/history_sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <stdexcept>

#include <unistd.h>

#include "core/base/bit_pack.h"
#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "core/base/fnv_hash.h"
#include "core/base/json_fields.h"
#include "core/base/json_text.h"

namespace ftb {

using nlohmann::json;
using history_db::exec;
using history_db::sqlite_fail;
using history_db::Statement;
using history_db::Transaction;

namespace {

// Switching a file to WAL needs it alone for a moment, and SQLite does not
// wait on the busy handler for that: two `history add` opening a new file at
// once see "database is locked" (cli.history_concurrent_adds caught it).
// Retried for up to the busy timeout; a file already in WAL mode stays so.
void use_wal(sqlite3* db, const std::string& path) {
  for (int attempt = 0;; ++attempt) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &stmt, nullptr);
    std::string mode;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(stmt);
      if (rc == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(stmt, 0);
        mode = text ? reinterpret_cast<const char*>(text) : "";
        rc = SQLITE_OK;
      }
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_OK && mode == "wal") return;
    const bool busy = rc == SQLITE_OK || (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy) sqlite_fail(db, path, "PRAGMA journal_mode=WAL");
    if (attempt >= 3000) throw std::runtime_error(path + ": could not switch the history to WAL mode: locked for 30 s");
    usleep(10000);
  }
}


constexpr const char* kRunColumns =
    "id, report_hash, machine, preset, config_hash, git_commit, time, source, environment, data_hash";
constexpr int kRunColumnCount = 10;


// The columns version 2 adds, from a report's JSON.
std::pair<std::string, json> environment_columns(const json& report_json) {
  const json env = report_json.is_object() ? report_json.value("environment", json::object()) : json::object();
  const json config = report_json.is_object() ? report_json.value("config", json::object()) : json::object();
  return {json_text(env.is_object() ? env : json::object()), run_facts(Environment(env), config).data_hash};
}
constexpr const char* kRepeatColumns =
    "train_samples_per_s, steady_samples_per_s, wall_time_s, step_ms_median, test_acc, peak_bytes, "
    "test_examples, test_correct";


HistoryRun run_from(const Statement& s) {
  HistoryRun r;
  r.id = s.integer(0);
  r.report_hash = s.text(1);
  r.machine = s.text(2);
  r.preset = s.text(3);
  r.config_hash = s.text(4);
  r.git_commit = s.text(5);
  r.time = s.text(6);
  r.source = s.text(7);
  // A stored environment that does not parse (edited by hand) is not recorded.
  r.facts.environment = Environment(json::parse(s.text(8), nullptr, /*allow_exceptions=*/false));
  r.facts.data_hash = s.is_null(9) ? json(nullptr) : json(s.text(9));
  return r;
}

// kRepeatColumns from column `c` on.
RepeatSample repeat_from(const Statement& s, int c) {
  RepeatSample r;
  r.train_samples_per_s = s.number(c);
  r.steady_samples_per_s = s.number(c + 1);
  r.wall_time_s = s.number(c + 2);
  r.step_ms_median = s.number(c + 3);
  r.test_acc = s.number(c + 4);
  r.peak_bytes = s.integer(c + 5);
  if (!s.is_null(c + 6) && !s.is_null(c + 7))
    r.test_correct = unpack_bits_base64(s.text(c + 7), static_cast<std::size_t>(s.integer(c + 6)), "history test_correct");
  return r;
}


// Every repeat of the report's ok rows under run `run_id`; InputError naming
// `where` when a scenario appears twice (the caller's transaction rolls back).
int insert_repeats(sqlite3* db, const std::string& path, int64_t run_id, const Report& report,
                   const std::string& where) {
  int added = 0;
  for (const auto& r : report.results) {
    if (r.status != Status::ok) continue;
    for (size_t k = 0; k < r.repeats.size(); ++k) {
      const RepeatSample& s = r.repeats[k];
      Statement rep(db, path,
                    "INSERT INTO repeats (run_id, scenario, repeat, train_samples_per_s, steady_samples_per_s, "
                    "wall_time_s, step_ms_median, test_acc, peak_bytes, test_examples, test_correct) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
      rep.bind(1, run_id).bind(2, r.scenario).bind(3, static_cast<int64_t>(k));
      rep.bind(4, s.train_samples_per_s).bind(5, s.steady_samples_per_s).bind(6, s.wall_time_s);
      rep.bind(7, s.step_ms_median).bind(8, s.test_acc).bind(9, s.peak_bytes);
      if (!s.test_correct.empty())  // unbound: NULL
        rep.bind(10, static_cast<int64_t>(s.test_correct.size())).bind(11, pack_bits_base64(s.test_correct));
      try {
        rep.step();
      } catch (const std::runtime_error&) {
        if ((sqlite3_errcode(db) & 0xff) == SQLITE_CONSTRAINT)
          input_error(where, "scenario '" + r.scenario + "' appears twice in results; nothing was added");
        throw;
      }
      ++added;
    }
  }
  return added;
}

}  // namespace

HistoryStore::HistoryStore(const std::string& path, Open mode) : path_(path) {
  if (mode == Open::existing && access(path.c_str(), F_OK) != 0)
    input_error(path, "no such history file (create it with `ftbench history add " + path + " report.json`)");
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    sqlite3* db = db_;
    db_ = nullptr;
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    input_error(path, "cannot open the history: " + msg);
  }
  try {
    sqlite3_busy_timeout(db_, 30000);
    use_wal(db_, path_);
    exec(db_, path_, "PRAGMA synchronous=NORMAL");
    exec(db_, path_, "PRAGMA foreign_keys=ON");
    migrate();
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

namespace {

// Every run's id and the report it keeps, for a migration that derives a
// column from it.
std::vector<std::pair<int64_t, std::string>> stored_reports(sqlite3* db, const std::string& path) {
  std::vector<std::pair<int64_t, std::string>> runs;
  Statement all(db, path, "SELECT id, report_json FROM runs");
  while (all.step()) runs.emplace_back(all.integer(0), all.text(1));
  return runs;
}

// Every run's config hash again, from the report it keeps: after a change
// of run_differences.h's key table.
void rehash_configs(sqlite3* db, const std::string& path) {
  for (const auto& [id, text] : stored_reports(db, path)) {
    const json report = json::parse(text, nullptr, false);
    if (!report.is_object() || !report.contains("config")) continue;
    Statement up(db, path, "UPDATE runs SET config_hash = ?1 WHERE id = ?2");
    up.bind(1, config_hash(report["config"])).bind(2, id);
    up.step();
  }
}

}  // namespace

HistoryStore::~HistoryStore() { sqlite3_close(db_); }

void HistoryStore::migrate() {
  Transaction t(db_, path_);
  exec(db_, path_, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const int version = schema_version();
  if (version > kHistorySchemaVersion)
    input_error(path_, "history schema version " + std::to_string(version) + " is newer than this ftbench knows (" +
                           std::to_string(kHistorySchemaVersion) + ")");
  if (version == 0) {
    exec(db_, path_, history_sql::kSchemaV1);
    exec(db_, path_, "INSERT INTO schema_version (version) VALUES (1)");
  }
  if (version < 2) {
    // Every run's environment and data hash, from the report it keeps.
    exec(db_, path_, history_sql::kSchemaV2);
    const auto runs = stored_reports(db_, path_);
    for (const auto& [id, text] : runs) {
      const auto [environment, data_hash] = environment_columns(json::parse(text, nullptr, false));
      Statement up(db_, path_, "UPDATE runs SET environment = ?1, data_hash = ?2 WHERE id = ?3");
      up.bind(1, environment).bind(3, id);
      if (data_hash.is_string()) up.bind(2, data_hash.get<std::string>());
      up.step();
    }
    exec(db_, path_, "UPDATE schema_version SET version = 2");
  }
  if (version < 3) {
    // A series is compare's "same configuration" (run_differences.h's key
    // table): every run's config hash again, from the report it keeps.
    rehash_configs(db_, path_);
    exec(db_, path_, "UPDATE schema_version SET version = 3");
  }
  if (version < 4) {
    // Each repeat's per-example hits, from the report it keeps (reports
    // from before they were kept have none: NULL).
    exec(db_, path_, history_sql::kSchemaV4);
    exec(db_, path_, history_sql::kFillV4);
    exec(db_, path_, "UPDATE schema_version SET version = 4");
  }
  if (version < 5) {
    // The key table gained the vocabulary's path by content: the same
    // vocabulary in another folder is one series (config hashes again).
    rehash_configs(db_, path_);
    exec(db_, path_, "UPDATE schema_version SET version = 5");
  }
  if (version < 6) {
    // Duet jobs: tonight against a named reference, the ratio per row.
    exec(db_, path_, history_sql::kSchemaV6);
    exec(db_, path_, "UPDATE schema_version SET version = 6");
  }
  if (version < 7) {
    // The duet row's change is B / A - 1, not a log: named for what it holds.
    exec(db_, path_, "ALTER TABLE duet_rows RENAME COLUMN log_ratio TO change_ratio");
    exec(db_, path_, "UPDATE schema_version SET version = 7");
  }
  // Later versions: `if (version < 8) { ALTER TABLE ...; UPDATE schema_version SET version = 8; }`
  t.commit();
}

int HistoryStore::schema_version() const {
  Statement s(db_, path_, "SELECT MAX(version) FROM schema_version");
  return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

HistoryStore::Added HistoryStore::add(const json& report_json, const std::string& where, const std::string& machine) {
  return add(report_json, report_from_json(report_json, where), where, machine);
}

HistoryStore::Added HistoryStore::add(const json& report_json, const Report& report, const std::string& where,
                                      const std::string& machine) {
  const RunKey key = run_key(report, where, machine);
  HistoryRun run;
  try {
    JsonFields env(report.environment.facts(), "environment");
    run.time = env.string("timestamp");
    run.git_commit = recorded_commit(report.environment);
  } catch (const InputError& e) {
    input_error(where, e.what());
  }
  run.report_hash = report_hash(report_json);
  run.machine = key.machine;
  run.preset = key.preset;
  run.config_hash = key.config_hash;
  run.source = where;

  Added out;
  Transaction t(db_, path_);
  {
    Statement existing(db_, path_, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE report_hash = ?1").c_str());
    existing.bind(1, run.report_hash);
    if (existing.step()) {
      out.run = run_from(existing);
      return out;  // nothing written; the destructor ends the transaction
    }
  }
  Statement ins(db_, path_,
                "INSERT INTO runs (report_hash, machine, preset, config_hash, git_commit, time, source, added_at, "
                "report_json, environment, data_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  ins.bind(1, run.report_hash).bind(2, run.machine).bind(3, run.preset).bind(4, run.config_hash);
  ins.bind(5, run.git_commit).bind(6, run.time).bind(7, run.source).bind(8, utc_timestamp()).bind(9, json_text(report_json));
  const auto [environment, data_hash] = environment_columns(report_json);
  ins.bind(10, environment);
  if (data_hash.is_string()) ins.bind(11, data_hash.get<std::string>());  // unbound: NULL
  run.facts = run_facts(report.environment, report.config);
  ins.step();
  run.id = sqlite3_last_insert_rowid(db_);
  out.repeats = insert_repeats(db_, path_, run.id, report, where);
  t.commit();
  out.added = true;
  out.run = run;
  return out;
}

std::vector<RepeatSample> HistoryStore::repeats_of(int64_t run_id, const std::string& scenario) const {
  Statement s(db_, path_, (std::string("SELECT ") + kRepeatColumns +
                           " FROM repeats WHERE run_id = ?1 AND scenario = ?2 ORDER BY repeat").c_str());
  s.bind(1, run_id).bind(2, scenario);
  std::vector<RepeatSample> out;
  while (s.step()) out.push_back(repeat_from(s, 0));
  return out;
}

std::vector<RunRepeats> HistoryStore::series(const std::string& scenario) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kRunColumns +
               " FROM runs r WHERE EXISTS (SELECT 1 FROM repeats p WHERE p.run_id = r.id AND p.scenario = ?1) "
               "ORDER BY time, id")
                  .c_str());
  s.bind(1, scenario);
  std::vector<RunRepeats> out;
  while (s.step()) out.push_back({run_from(s), {}});
  for (auto& r : out) r.repeats = repeats_of(r.run.id, scenario);
  return out;
}

std::vector<RunRepeats> HistoryStore::window(const RunKey& key, const std::string& scenario, int window,
                                             const std::string& exclude, const HistoryRun* before) const {
  return this->window(key, scenario, window, std::vector<std::string>{exclude}, before);
}

std::vector<RunRepeats> HistoryStore::window(const RunKey& key, const std::string& scenario, int window,
                                             const std::vector<std::string>& exclude,
                                             const HistoryRun* before) const {
  // One query for the runs and their repeats: `history show` asks for a
  // window per run per scenario (a statement per run made hundreds of runs
  // slow). The excluded runs (tonight's reports) are left out here, so the
  // query asks for as many more.
  Statement s(db_, path_,
              (std::string("SELECT r.*, ") + kRepeatColumns + " FROM (SELECT " + kRunColumns +
               " FROM runs WHERE machine = ?1 AND preset = ?2 AND config_hash = ?3 "
               "AND EXISTS (SELECT 1 FROM repeats p WHERE p.run_id = runs.id AND p.scenario = ?5) "
               "AND (?7 IS NULL OR time < ?7 OR (time = ?7 AND id < ?8)) "
               "ORDER BY time DESC, id DESC LIMIT ?6) r "
               "JOIN repeats p ON p.run_id = r.id AND p.scenario = ?5 ORDER BY r.time DESC, r.id DESC, p.repeat")
                  .c_str());
  s.bind(1, key.machine).bind(2, key.preset).bind(3, key.config_hash).bind(5, scenario);
  s.bind(6, static_cast<int64_t>(window) + static_cast<int64_t>(exclude.size()));
  if (before) s.bind(7, before->time).bind(8, before->id);  // unbound: NULL, no bound
  std::vector<RunRepeats> out;
  int64_t skipped = -1;  // the excluded run whose rows are being read
  while (s.step()) {
    const int64_t id = s.integer(0);
    if (id == skipped) continue;
    if (out.empty() || out.back().run.id != id) {
      HistoryRun run = run_from(s);
      if (std::find(exclude.begin(), exclude.end(), run.report_hash) != exclude.end()) {
        skipped = id;
        continue;
      }
      if (static_cast<int>(out.size()) == window) break;
      out.push_back({std::move(run), {}});
    }
    out.back().repeats.push_back(repeat_from(s, kRunColumnCount));
  }
  return out;
}

std::vector<HistoryRun> HistoryStore::runs_on_machine(const std::string& machine, const std::string& exclude) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kRunColumns +
               " FROM runs WHERE machine = ?1 AND report_hash <> ?2 ORDER BY time DESC, id DESC")
                  .c_str());
  s.bind(1, machine).bind(2, exclude);
  std::vector<HistoryRun> out;
  while (s.step()) out.push_back(run_from(s));
  return out;
}

json HistoryStore::report_json(int64_t run_id) const {
  Statement s(db_, path_, "SELECT report_json FROM runs WHERE id = ?1");
  s.bind(1, run_id);
  if (!s.step()) throw std::runtime_error(path_ + ": no run " + std::to_string(run_id));
  return json::parse(s.text(0));
}

std::vector<std::string> HistoryStore::scenarios() const {
  Statement s(db_, path_, "SELECT DISTINCT scenario FROM repeats ORDER BY scenario");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

int64_t HistoryStore::run_count() const {
  Statement s(db_, path_, "SELECT COUNT(*) FROM runs");
  s.step();
  return s.integer(0);
}

}  // namespace ftb
