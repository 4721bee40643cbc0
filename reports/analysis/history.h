// The history store: every report a nightly job adds, in one SQLite file, so
// `regress` can judge tonight against weeks of nights and `history show` can
// draw the trend.
//
// Tables (schema version kHistorySchemaVersion, in table schema_version):
//   runs     one row per report added: id, report_hash (UNIQUE), machine,
//            preset, config_hash, git_commit, time, source, added_at and the
//            whole report JSON as read (report_json), so nothing is lost;
//            since version 2 also the report's environment object
//            (environment, JSON text) and config.workload.data_hash
//            (data_hash, NULL when the report has none): the facts `regress`
//            and `history show` compare (reports/analysis/suspects.h),
//            readable without parsing whole reports and open to ad-hoc SQL
//            (json_extract(environment, '$.cpu.family')). Opening a version
//            1 file adds both columns and fills them from report_json;
//   repeats  one row per repeat per ok scenario (run_id, scenario, repeat)
//            with the metrics of reports/analysis/metrics.h as columns, so the
//            statistics see every repeat, not medians of medians;
//            since version 4 also test_examples and test_correct (the
//            repeat's per-example test hits, base64: regress's paired
//            accuracy judge), NULL where the report kept none;
//   history  a view joining the two, for ad-hoc SQL;
//   duets, duet_rows (version 6; version 7 names the change column
//            change_ratio) one row per `ftbench duet` job and one per
//            row of it: tonight's build (side B) against a named reference
//            (side A), the change B / A - 1 (the geometric mean of the
//            pairs' ratios, minus 1) with its interval and verdict (the
//            ratio series beside the absolute levels of runs/repeats).
//
// Keys (derived here, one place):
//   machine      environment.host + " | " + environment.cpu.model, plus
//                " | " + the GPU names ("2x NVIDIA H200") when there are GPUs.
//                CI runners with random host names pass --machine instead.
//   config_hash  FNV-1a 64 of the report's `config` object (keys sorted,
//                compact JSON) as compare sees it: run_differences.h's key
//                table (identity_config), the one rule for "the same
//                configuration"; accumulate where it is 1 (the default older
//                reports lack). Opening a file of an older version whose
//                table differed hashes every stored run's config again
//                (versions 3 and 5).
//   report_hash  FNV-1a 64 of the whole report JSON (keys sorted, compact):
//                adding the same report again is idempotent (nothing added,
//                the existing run named), whatever its file name or spacing.
//   time         environment.timestamp (ISO 8601 UTC, sorts as text);
//                git_commit from environment.git_commit.
//
// Safety: WAL journal, a 30 s busy timeout and one BEGIN IMMEDIATE
// transaction per add, so two `history add` at once both land and a crash
// mid-add leaves the store as it was before that add (synchronous=NORMAL: a
// power loss may drop the last adds, never corrupt the file).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "reports/analysis/metrics.h"
#include "reports/analysis/suspects.h"
#include "reports/record/report.h"

struct sqlite3;

namespace ftb {

inline constexpr int kHistorySchemaVersion = 7;

std::string machine_key(const Environment& environment);  // InputError naming the missing key
std::string config_hash(const nlohmann::json& config);
std::string report_hash(const nlohmann::json& report_json);
// The config as config_hash sees it: run_differences.h's identity_config
// (the one rule compare refuses by), keys at the value older reports ran at
// left out.
nlohmann::json hashed_config(const nlohmann::json& config);

// What a series of comparable runs shares.
struct RunKey {
  std::string machine, preset, config_hash;
};
// `machine` overrides the derived key when not empty. InputError naming
// `where` and the key (environment.host, config.preset) when one is missing.
RunKey run_key(const Report& report, const std::string& where, const std::string& machine = "");

// A duet job in the history: tonight (side B) against a named reference
// (side A). The machine, commits, time and tonight's configuration come from
// the first pair's reports (duet.json's folder, pair-1/{a,b}/report.json).
//   reference  side A by content: "ftbench <12 hex>", the FNV-1a 64 of its
//              executable (duet.json sides.a.executable_hash), or for a
//              duet.json without it "commit <A's commit>[, dirty]"; plus
//              ", config <hash>" when side A ran another configuration than B.
struct DuetRun {
  int64_t id = 0;
  std::string duet_hash, machine, preset, config_hash, reference, reference_commit, git_commit, mode, time, source;
};

// One row of one duet job (NaN where the job left the row unjudged).
struct DuetRatio {
  DuetRun duet;
  std::string scenario, verdict;
  int pairs = 0;
  // change: B / A - 1 as duet.json's change.estimate (exp of the mean log
  // ratio over pairs, minus 1); low, high: its interval, the same way.
  double change = 0, low = 0, high = 0, level = 0, sd_log_ratio = 0;
};

// Whether a JSON document is a duet.json (it has duet_version).
bool is_duet_record(const nlohmann::json& j);
// A duet.json the history can keep: judged rows, each a scenario named once,
// and no failed side. InputError naming `where` otherwise.
void check_duet_record(const nlohmann::json& duet_json, const std::string& where);
// The job's identity in the history (history.h's DuetRun, id 0): from its
// duet.json and its first pair's reports (side A, side B).
DuetRun duet_run(const nlohmann::json& duet_json, const Report& a, const Report& b, const std::string& where,
                 const std::string& machine = "");

struct HistoryRun {
  int64_t id = 0;
  std::string report_hash, machine, preset, config_hash, git_commit, time, source;
  RunFacts facts;  // its environment and data hash (what changed between runs)
};

// One scenario's repeats in one run.
struct RunRepeats {
  HistoryRun run;
  std::vector<RepeatSample> repeats;  // the metrics of reports/analysis/metrics.h; other fields 0
};

class HistoryStore {
 public:
  enum class Open { create, existing };
  // InputError naming `path`: missing (Open::existing), not a SQLite file,
  // or a schema newer than this ftbench knows.
  HistoryStore(const std::string& path, Open mode);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  struct Added {
    bool added = false;  // false: the same report (report_hash) was already there
    HistoryRun run;      // the new run, or the one already there
    int64_t repeats = 0; // repeat rows written
  };
  // Adds one report (its JSON as read from `where`; InputError naming `where`
  // for a bad report), in one transaction.
  Added add(const nlohmann::json& report_json, const std::string& where, const std::string& machine = "");
  // The same, for a report already read (report_from_json) from that JSON.
  Added add(const nlohmann::json& report_json, const Report& report, const std::string& where,
            const std::string& machine = "");

  // Every run with ok repeats of `scenario`, oldest first (time, then id).
  std::vector<RunRepeats> series(const std::string& scenario) const;
  // The newest `window` runs of `key` with ok repeats of `scenario`, newest
  // first, leaving out the run whose report_hash is `exclude` (tonight's
  // report when it was added before `regress`) and, when `before` is given,
  // every run not before it (time, then id): the window `regress` saw on
  // that run's night (`history show`).
  std::vector<RunRepeats> window(const RunKey& key, const std::string& scenario, int window,
                                 const std::string& exclude, const HistoryRun* before = nullptr) const;
  // The same, leaving out every run whose report_hash is in `exclude`
  // (tonight's several runs).
  std::vector<RunRepeats> window(const RunKey& key, const std::string& scenario, int window,
                                 const std::vector<std::string>& exclude, const HistoryRun* before = nullptr) const;
  // Runs on `machine`, newest first, leaving out `exclude`.
  std::vector<HistoryRun> runs_on_machine(const std::string& machine, const std::string& exclude) const;
  nlohmann::json report_json(int64_t run_id) const;
  struct AddedDuet {
    bool added = false;  // false: the same duet.json (duet_hash) was already there
    DuetRun duet;
    int64_t rows = 0;
  };
  // Adds one duet job: its duet.json (read from `where`) and its first pair's
  // reports, side A and B, already read; in one transaction. InputError naming
  // `where` for a record without judged rows.
  AddedDuet add_duet(const nlohmann::json& duet_json, const Report& a, const Report& b, const std::string& where,
                     const std::string& machine = "");
  // Every duet row of `scenario`, oldest first (time, then id); with `before`,
  // only the jobs of its machine, preset and configuration from before it
  // (earlier time), the job itself left out.
  std::vector<DuetRatio> duet_series(const std::string& scenario, const DuetRun* before = nullptr) const;
  std::vector<std::string> duet_scenarios() const;  // sorted
  int64_t duet_count() const;

  std::vector<std::string> scenarios() const;  // with repeats, sorted
  int64_t run_count() const;
  int schema_version() const;

 private:
  std::vector<RepeatSample> repeats_of(int64_t run_id, const std::string& scenario) const;
  void migrate();
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace ftb
