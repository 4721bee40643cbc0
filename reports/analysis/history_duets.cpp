// The history's duet jobs (schema 6): `history add DB out/duet.json` keeps
// each row's change B / A with its interval and verdict against the
// reference side A named, so `history show` lists the ratio series beside
// the absolute levels.
#include "reports/analysis/history.h"
#include "reports/analysis/history_sqlite.h"

#include <cmath>
#include <set>
#include <limits>

#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "core/base/json_text.h"

namespace ftb {

using history_db::Statement;
using history_db::Transaction;
using nlohmann::json;

namespace {

constexpr const char* kDuetColumns =
    "d.id, d.duet_hash, d.machine, d.preset, d.config_hash, d.reference, d.reference_commit, d.git_commit, d.mode, "
    "d.time, d.source";

// A side's build by its commit: "19a6fd027f4f" or "19a6fd027f4f, dirty".
std::string commit_of(const Report& r) {
  return recorded_commit(r.environment) + (r.environment.git_tree() == "dirty" ? ", dirty" : "");
}

// Side A named by content (history.h's DuetRun).
std::string reference_name(const json& duet_json, const Report& a, const Report& b) {
  const json sides = duet_json.value("sides", json::object());
  const json side_a = sides.is_object() ? sides.value("a", json::object()) : json::object();
  std::string name;
  if (side_a.is_object() && side_a.contains("executable_hash") && side_a["executable_hash"].is_string())
    name = "ftbench " + side_a["executable_hash"].get<std::string>().substr(0, 12);
  else
    name = "commit " + commit_of(a);
  if (config_hash(a.config) != config_hash(b.config)) name += ", config " + config_hash(a.config);
  // Variables set on side A alone (duet --a-env) change what ran: named too.
  if (side_a.is_object() && side_a.contains("env") && side_a["env"].is_array())
    for (const auto& v : side_a["env"])
      if (v.is_string()) name += ", " + v.get<std::string>();
  return name;
}

double number_at(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>()
                                                                 : std::numeric_limits<double>::quiet_NaN();
}

void bind_number(Statement& s, int i, double v) {
  if (std::isfinite(v)) s.bind(i, v);  // unbound: NULL
}


DuetRun duet_from(const Statement& s) {
  DuetRun d;
  d.id = s.integer(0);
  d.duet_hash = s.text(1);
  d.machine = s.text(2);
  d.preset = s.text(3);
  d.config_hash = s.text(4);
  d.reference = s.text(5);
  d.reference_commit = s.text(6);
  d.git_commit = s.text(7);
  d.mode = s.text(8);
  d.time = s.text(9);
  d.source = s.text(10);
  return d;
}

double number_or_nan(const Statement& s, int c) {
  return s.is_null(c) ? std::numeric_limits<double>::quiet_NaN() : s.number(c);
}

}  // namespace

bool is_duet_record(const json& j) { return j.is_object() && j.contains("duet_version"); }

void check_duet_record(const json& duet_json, const std::string& where) {
  if (!is_duet_record(duet_json)) input_error(where, "is not a duet.json (no duet_version)");
  if (const std::string failure = duet_json.value("failure", ""); !failure.empty())
    input_error(where, "records a failed job (" + failure + "): nothing judged to keep");
  const json rows = duet_json.value("rows", json::array());
  if (!rows.is_array() || rows.empty()) input_error(where, "has no rows (not a judged duet.json)");
  std::set<std::string> seen;
  for (const auto& r : rows) {
    if (!r.is_object() || !r.contains("scenario") || !r["scenario"].is_string())
      input_error(where, "a row without a scenario name");
    const std::string name = r["scenario"].get<std::string>();
    if (!seen.insert(name).second) input_error(where, "scenario '" + name + "' appears twice in rows");
    if (r.contains("verdict") && !r["verdict"].is_string()) input_error(where, "row '" + name + "': verdict is not text");
    if (r.contains("pairs") && !r["pairs"].is_number_integer())
      input_error(where, "row '" + name + "': pairs is not a whole number");
  }
}

DuetRun duet_run(const json& duet_json, const Report& a, const Report& b, const std::string& where,
                 const std::string& machine) {
  const RunKey key = run_key(b, where, machine);
  DuetRun d;
  d.duet_hash = report_hash(duet_json);
  d.machine = key.machine;
  d.preset = key.preset;
  d.config_hash = key.config_hash;
  d.reference = reference_name(duet_json, a, b);
  d.reference_commit = recorded_commit(a.environment);
  d.git_commit = commit_of(b);
  d.mode = duet_json.value("mode", "duet");
  d.time = b.environment.timestamp();
  if (d.time.empty()) input_error(where, "its first pair's side B report has no environment.timestamp");
  d.source = where;
  return d;
}

HistoryStore::AddedDuet HistoryStore::add_duet(const json& duet_json, const Report& a, const Report& b,
                                               const std::string& where, const std::string& machine) {
  check_duet_record(duet_json, where);
  const json rows = duet_json["rows"];
  DuetRun d = duet_run(duet_json, a, b, where, machine);

  AddedDuet out;
  Transaction t(db_, path_);
  {
    Statement existing(db_, path_, (std::string("SELECT ") + kDuetColumns + " FROM duets d WHERE duet_hash = ?1").c_str());
    existing.bind(1, d.duet_hash);
    if (existing.step()) {
      out.duet = duet_from(existing);
      return out;
    }
  }
  Statement ins(db_, path_,
                "INSERT INTO duets (duet_hash, machine, preset, config_hash, reference, reference_commit, git_commit, "
                "mode, time, source, added_at, duet_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  ins.bind(1, d.duet_hash).bind(2, d.machine).bind(3, d.preset).bind(4, d.config_hash).bind(5, d.reference);
  ins.bind(6, d.reference_commit).bind(7, d.git_commit).bind(8, d.mode).bind(9, d.time).bind(10, d.source);
  ins.bind(11, utc_timestamp()).bind(12, json_text(duet_json));
  ins.step();
  d.id = sqlite3_last_insert_rowid(db_);
  for (const auto& r : rows) {
    const json change = r.value("change", json::object());
    Statement row(db_, path_,
                  "INSERT INTO duet_rows (duet_id, scenario, verdict, pairs, change_ratio, low, high, level, sd_log_ratio) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    row.bind(1, d.id).bind(2, r["scenario"].get<std::string>()).bind(3, r.value("verdict", "not judged"));
    row.bind(4, static_cast<int64_t>(r.value("pairs", 0)));
    bind_number(row, 5, number_at(change, "estimate"));
    bind_number(row, 6, number_at(change, "low"));
    bind_number(row, 7, number_at(change, "high"));
    bind_number(row, 8, number_at(change, "level"));
    bind_number(row, 9, number_at(r, "sd_log_ratio"));
    row.step();
    ++out.rows;
  }
  t.commit();
  out.added = true;
  out.duet = d;
  return out;
}

std::vector<DuetRatio> HistoryStore::duet_series(const std::string& scenario, const DuetRun* before) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kDuetColumns +
               ", r.scenario, r.verdict, r.pairs, r.change_ratio, r.low, r.high, r.level, r.sd_log_ratio "
               "FROM duet_rows r JOIN duets d ON d.id = r.duet_id WHERE r.scenario = ?1 "
               "AND (?2 IS NULL OR (d.machine = ?2 AND d.preset = ?3 AND d.config_hash = ?4 AND d.time < ?5 "
               "AND d.duet_hash <> ?6)) ORDER BY d.time, d.id")
                  .c_str());
  s.bind(1, scenario);
  if (before)  // unbound: NULL, every job
    s.bind(2, before->machine).bind(3, before->preset).bind(4, before->config_hash).bind(5, before->time).bind(6, before->duet_hash);
  std::vector<DuetRatio> out;
  while (s.step()) {
    DuetRatio r;
    r.duet = duet_from(s);
    r.scenario = s.text(11);
    r.verdict = s.text(12);
    r.pairs = static_cast<int>(s.integer(13));
    r.change = number_or_nan(s, 14);
    r.low = number_or_nan(s, 15);
    r.high = number_or_nan(s, 16);
    r.level = number_or_nan(s, 17);
    r.sd_log_ratio = number_or_nan(s, 18);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> HistoryStore::duet_scenarios() const {
  Statement s(db_, path_, "SELECT DISTINCT scenario FROM duet_rows ORDER BY scenario");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

int64_t HistoryStore::duet_count() const {
  Statement s(db_, path_, "SELECT COUNT(*) FROM duets");
  s.step();
  return s.integer(0);
}

}  // namespace ftb
