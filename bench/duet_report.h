// A duet job's record (bench/cmd_duet.cpp): the sides, the cores, every pair
// with each row's throughput on both sides and its log ratio, and the
// verdicts of the last look; written to duet.json and rendered as duet.md.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/duet_pair.h"
#include "reports/analysis/duet.h"
#include "reports/record/report.h"

namespace ftb {

struct DuetPair {
  PairRun run;
  // Row -> each side's train_samples_per_s (the gated metric; NaN where the
  // row did not run ok on that side).
  std::map<std::string, std::array<double, 2>> throughput;
};

struct DuetJob {
  DuetSide a, b;
  std::array<std::vector<int>, 2> core_sets;  // the duet's two sets (the same set twice: sequential)
  std::array<std::vector<int>, 2> gpu_sets;   // likewise for GPUs (empty: CPU sides)
  bool sequential = false;
  double rotate_s = 0;  // the duet's sides trade cores this often within a pair (0: every pair keeps its cores)
  stats::DuetDesign design;
  double budget_s = 0, elapsed_s = 0;
  std::string out;
  std::vector<DuetPair> pairs;
  std::vector<std::string> rows;  // in the first pair's report order
  std::vector<stats::DuetRow> verdicts;  // per row, the last look's
  int judged_at = 0;                     // pairs at the last look
  std::string stopped;  // "settled" | "budget" | "last look" | "a side failed"
  std::string failure;  // one line when a side failed
};

// Reads the pair's two reports into the job (a side that failed: job.failure).
void add_pair(DuetJob& job, PairRun run);
// A look over the pairs so far; true when every row is settled.
bool judge(DuetJob& job);
// The job's verdicts judged again from its pairs as the job judged them: at
// each look up to its pairs, stopping where every row settled, then at all
// its pairs (a job stopped by its budget between looks). With the job's own
// design it gives the job's verdicts; with another (min_effect, looks) what
// that design would have said of the same pairs.
void rejudge(DuetJob& job);
// duet.json read back (`where` names it in errors: InputError).
DuetJob duet_from_json(const nlohmann::json& j, const std::string& where);
// The same from a file: InputError naming `path` when it cannot be read, is
// not JSON or not a duet record.
DuetJob read_duet_file(const std::string& path);
// A recorded job's first pair's reports, side A and B, beside its duet.json
// (its folder/pair-1/{a,b}/report.json, as the job wrote them): the
// machine, commits and time it ran at. InputError naming duet.json.
std::pair<Report, Report> first_pair_reports(const std::string& duet_path);
// Whether `path` holds a duet.json (a JSON object with duet_version); false
// for anything else, read or not.
bool is_duet_file(const std::string& path);
bool any_worse(const DuetJob& job);
nlohmann::json duet_json(const DuetJob& job);
void write_duet(const DuetJob& job);  // duet.json and duet.md, atomically
std::string duet_markdown(const DuetJob& job);

}  // namespace ftb
