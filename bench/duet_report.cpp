#include "bench/duet_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/json_fields.h"
#include "core/base/text_format.h"
#include "reports/analysis/history.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/two_level.h"
#include "reports/record/report.h"

namespace ftb {

using nlohmann::json;

namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

std::string side_failure(const char* side, const SideRun& r) {
  return "side " + std::string(side) + " (" + r.out + ") exited with " + std::to_string(r.exit_code) + "; its output: " +
         r.out + ".log";
}

// Each row's throughput on one side; a row not ok there stays NaN.
void read_side(const std::string& out, int side, DuetJob& job, DuetPair& pair) {
  const Report report = read_report(out + "/report.json");
  for (const auto& r : report.results) {
    if (pair.throughput.find(r.scenario) == pair.throughput.end()) pair.throughput[r.scenario] = {kNoValue, kNoValue};
    if (r.status == Status::ok && r.train_samples_per_s > 0)
      pair.throughput[r.scenario][static_cast<size_t>(side)] = r.train_samples_per_s;
    if (job.pairs.empty() && side == 0) job.rows.push_back(r.scenario);
  }
}

// Per row: each side's log throughput and the log ratio over pairs.
struct RowSeries {
  std::vector<double> a, b, ratio;
};
RowSeries series(const DuetJob& job, const std::string& row) {
  RowSeries s;
  for (const auto& p : job.pairs) {
    const auto it = p.throughput.find(row);
    const double ta = it == p.throughput.end() ? kNoValue : it->second[0];
    const double tb = it == p.throughput.end() ? kNoValue : it->second[1];
    s.a.push_back(std::log(ta));
    s.b.push_back(std::log(tb));
    s.ratio.push_back(std::log(tb) - std::log(ta));
  }
  return s;
}

// The sd of the finite values, and the correlation of a and b over the
// pairs where both are (NaN under 3 pairs).
double finite_sd(const std::vector<double>& x) {
  std::vector<double> f;
  for (double v : x)
    if (std::isfinite(v)) f.push_back(v);
  return f.size() >= 2 ? std::sqrt(stats::sample_variance(f)) : kNoValue;
}
double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> x, y;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) x.push_back(a[i]), y.push_back(b[i]);
  if (x.size() < 3) return kNoValue;
  const double mx = stats::mean(x), my = stats::mean(y);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : kNoValue;
}

json side_record(const DuetSide& s) {
  json j = {{"executable", s.executable}, {"args", s.args}, {"env", s.env}};
  if (!s.executable_hash.empty()) j["executable_hash"] = s.executable_hash;
  return j;
}

json side_json(const SideRun& s) {
  return {{"cores", s.cores}, {"gpus", s.gpus}, {"out", s.out}, {"exit_code", s.exit_code}, {"seconds", s.seconds}};
}

json pair_json(const DuetPair& p, size_t k) {
  json rows = json::object();
  for (const auto& [row, t] : p.throughput)
    rows[row] = {{"a", finite_or_null(t[0])}, {"b", finite_or_null(t[1])}, {"log_ratio", finite_or_null(std::log(t[1]) - std::log(t[0]))}};
  return {{"pair", k + 1},
          {"together", p.run.together},
          {"first", std::string(1, p.run.first)},
          {"a", side_json(p.run.a)},
          {"b", side_json(p.run.b)},
          {"seconds", p.run.seconds},
          {"steal_s", finite_or_null(p.run.steal_s)},
          {"rotations", p.run.rotations},
          {"loadavg_before", finite_or_null(p.run.loadavg_before)},
          {"loadavg_after", finite_or_null(p.run.loadavg_after)},
          {"train_samples_per_s", rows}};
}

json row_json(const DuetJob& job, size_t i) {
  const auto s = series(job, job.rows[i]);
  json j = {{"scenario", job.rows[i]},
            {"sd_log_a", finite_or_null(finite_sd(s.a))},
            {"sd_log_b", finite_or_null(finite_sd(s.b))},
            {"sd_log_ratio", finite_or_null(finite_sd(s.ratio))},
            {"correlation", finite_or_null(correlation(s.a, s.b))}};
  if (i < job.verdicts.size()) {
    const auto& v = job.verdicts[i];
    const auto& r = v.change.decision.reason;
    j["verdict"] = to_string(v.change.decision.verdict);
    j["pairs"] = v.change.pairs;
    j["settled_at"] = v.settled_at;
    j["change"] = {{"estimate", finite_or_null(r.estimate)}, {"low", finite_or_null(r.low)}, {"high", finite_or_null(r.high)},
                   {"level", r.level}, {"p_two_sided", finite_or_null(v.change.p)}};
    j["reason"] = stats::explain(r);
  }
  return j;
}

std::string cores_text(const std::vector<int>& cores) {
  std::string s;
  for (int c : cores) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

// One line a pair: where each side ran, what the machine did meanwhile, and
// each row's ratio, so a noisy pair is seen.
std::string pairs_markdown(const DuetJob& job) {
  const bool trades = job.rotate_s > 0;
  std::vector<std::vector<std::string>> t = {{"pair", "cores A | B", "seconds", "steal s", "load before -> after"}};
  if (trades) t[0].insert(t[0].begin() + 2, "trades");
  for (const auto& row : job.rows) t[0].push_back(row + " B / A");
  for (size_t k = 0; k < job.pairs.size(); ++k) {
    const auto& p = job.pairs[k];
    std::vector<std::string> line = {
        std::to_string(k + 1) + (p.run.together ? "" : std::string(" (") + p.run.first + " first)"),
        cores_text(p.run.a.cores) + " | " + cores_text(p.run.b.cores), format_double("%.0f", p.run.seconds),
        p.run.steal_s >= 0 ? format_double("%.1f", p.run.steal_s) : "-",
        format_double("%.2f", p.run.loadavg_before) + " -> " + format_double("%.2f", p.run.loadavg_after)};
    if (trades) line.insert(line.begin() + 2, std::to_string(p.run.rotations));
    for (const auto& row : job.rows) {
      const auto it = p.throughput.find(row);
      line.push_back(it == p.throughput.end() ? "-" : format_percent(it->second[1] / it->second[0] - 1));
    }
    t.push_back(line);
  }
  return format_table(t, std::vector<bool>(t[0].size(), true), TableStyle::markdown);
}

}  // namespace

void add_pair(DuetJob& job, PairRun run) {
  DuetPair pair;
  pair.run = std::move(run);
  if (pair.run.a.exit_code != 0) job.failure = side_failure("a", pair.run.a);
  else if (pair.run.b.exit_code != 0) job.failure = side_failure("b", pair.run.b);
  if (job.failure.empty()) {
    read_side(pair.run.a.out, 0, job, pair);
    read_side(pair.run.b.out, 1, job, pair);
  }
  job.pairs.push_back(std::move(pair));
}

bool judge(DuetJob& job, size_t pairs) {
  std::vector<std::vector<double>> ratios;
  for (const auto& row : job.rows) {
    auto r = series(job, row).ratio;
    r.resize(std::min(r.size(), pairs));
    ratios.push_back(std::move(r));
  }
  stats::judge_look(ratios, job.design, job.verdicts);
  job.judged_at = static_cast<int>(std::min(pairs, job.pairs.size()));
  return stats::all_settled(job.verdicts);
}

bool judge(DuetJob& job) { return judge(job, job.pairs.size()); }

void rejudge(DuetJob& job) {
  job.verdicts.clear();
  job.judged_at = 0;
  const size_t n = job.pairs.size();
  for (int look : job.design.looks) {
    if (static_cast<size_t>(look) > n) break;
    if (judge(job, static_cast<size_t>(look))) return;
  }
  if (static_cast<size_t>(job.judged_at) != n) judge(job, n);
}

namespace {

std::vector<int> int_list(const json& j) {
  std::vector<int> out;
  if (j.is_array())
    for (const auto& v : j) out.push_back(v.get<int>());
  return out;
}

std::vector<std::string> string_list(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& v : j) out.push_back(v.get<std::string>());
  return out;
}

DuetSide side_from_record(const json& j) {
  return {j.at("executable").get<std::string>(), string_list(j.at("args")), string_list(j.value("env", json::array())),
          j.value("executable_hash", "")};
}

SideRun side_from_json(const json& j) {
  SideRun s;
  s.cores = int_list(j.at("cores"));
  s.gpus = int_list(j.value("gpus", json::array()));
  s.out = j.at("out").get<std::string>();
  s.exit_code = j.at("exit_code").get<int>();
  s.seconds = j.at("seconds").get<double>();
  return s;
}

double number_or_nan(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNoValue;
}

DuetPair pair_from_json(const json& j) {
  DuetPair p;
  p.run.together = j.at("together").get<bool>();
  p.run.first = j.at("first").get<std::string>().c_str()[0];
  p.run.a = side_from_json(j.at("a"));
  p.run.b = side_from_json(j.at("b"));
  p.run.seconds = j.at("seconds").get<double>();
  p.run.steal_s = number_or_nan(j, "steal_s");
  p.run.rotations = j.value("rotations", 0);  // absent: a job from before the trades (none)
  p.run.loadavg_before = number_or_nan(j, "loadavg_before");
  p.run.loadavg_after = number_or_nan(j, "loadavg_after");
  for (const auto& [row, t] : j.at("train_samples_per_s").items())
    p.throughput[row] = {number_or_nan(t, "a"), number_or_nan(t, "b")};
  return p;
}

}  // namespace

DuetJob duet_from_json(const json& j, const std::string& where) {
  DuetJob job;
  try {
    if (j.value("duet_version", 0) != 1) input_error(where, "is not a duet.json of version 1");
    job.sequential = j.at("mode").get<std::string>() == "sequential";
    const json& sides = j.at("sides");
    job.a = side_from_record(sides.at("a"));
    job.b = side_from_record(sides.at("b"));
    job.core_sets = {int_list(j.at("core_sets").at(0)), int_list(j.at("core_sets").at(1))};
    if (j.contains("gpu_sets"))
      job.gpu_sets = {int_list(j.at("gpu_sets").at(0)), int_list(j.at("gpu_sets").at(1))};
    const json& d = j.at("design");
    job.design.family_alpha = d.at("family_alpha").get<double>();
    job.design.same_risk = d.at("same_risk").get<double>();
    job.design.min_effect = d.at("min_effect").get<double>();
    job.design.looks = int_list(d.at("looks"));
    job.budget_s = j.at("budget_s").get<double>();
    job.rotate_s = j.value("rotate_s", 0.0);
    job.elapsed_s = j.at("elapsed_s").get<double>();
    job.stopped = j.at("stopped").get<std::string>();
    job.failure = j.at("failure").get<std::string>();
    for (const auto& p : j.at("pairs")) job.pairs.push_back(pair_from_json(p));
    for (const auto& r : j.at("rows")) job.rows.push_back(r.at("scenario").get<std::string>());
  } catch (const json::exception& e) {
    input_error(where, std::string("is not a duet record: ") + e.what());
  }
  return job;
}

DuetJob read_duet_file(const std::string& path) { return duet_from_json(read_json_file(path), path); }

bool is_duet_file(const std::string& path) {
  std::ifstream in(path);
  return in && is_duet_record(json::parse(in, nullptr, /*allow_exceptions=*/false));
}

std::pair<Report, Report> first_pair_reports(const std::string& duet_path) {
  const auto slash = duet_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : duet_path.substr(0, slash);
  try {
    return {read_report(dir + "/pair-1/a/report.json"), read_report(dir + "/pair-1/b/report.json")};
  } catch (const InputError& e) {
    input_error(duet_path, std::string("its first pair's report: ") + e.what());
  }
}

bool any_worse(const DuetJob& job) {
  for (const auto& v : job.verdicts)
    if (v.change.decision.verdict == stats::Verdict::worse) return true;
  return false;
}

json duet_json(const DuetJob& job) {
  json pairs = json::array(), rows = json::array();
  for (size_t k = 0; k < job.pairs.size(); ++k) pairs.push_back(pair_json(job.pairs[k], k));
  for (size_t i = 0; i < job.rows.size(); ++i) rows.push_back(row_json(job, i));
  const auto& d = job.design;
  return {{"duet_version", 1},
          {"mode", job.sequential ? "sequential" : "duet"},
          {"metric", "train_samples_per_s"},
          {"sides", {{"a", side_record(job.a)}, {"b", side_record(job.b)}}},
          {"core_sets", job.core_sets},
          {"gpu_sets", job.gpu_sets},
          {"design", {{"family_alpha", d.family_alpha}, {"same_risk", d.same_risk}, {"min_effect", d.min_effect},
                      {"looks", d.looks}, {"look_alpha", d.look_alpha()}, {"interval_level", d.interval_level()}}},
          {"budget_s", job.budget_s},
          {"rotate_s", job.rotate_s},
          {"elapsed_s", job.elapsed_s},
          {"stopped", job.stopped},
          {"failure", job.failure},
          {"judged_at_pairs", job.judged_at},
          {"pairs", pairs},
          {"rows", rows}};
}

std::string duet_markdown(const DuetJob& job) {
  std::vector<std::vector<std::string>> t = {{"row", "verdict", "change B / A", "interval", "pairs", "sd log ratio",
                                              "sd log A", "sd log B", "corr A,B"}};
  const json j = duet_json(job);
  for (const auto& r : j["rows"]) {
    const auto d = [&](const char* k) { return r[k].is_number() ? r[k].get<double>() : kNoValue; };
    const json& c = r.contains("change") ? r["change"] : json::object();
    const auto cv = [&](const char* k) { return c.contains(k) && c[k].is_number() ? c[k].get<double>() : kNoValue; };
    t.push_back({r["scenario"].get<std::string>(), r.value("verdict", "not judged"), format_percent(cv("estimate")),
                 format_percent(cv("low")) + " to " + format_percent(cv("high")), std::to_string(r.value("pairs", 0)),
                 format_percent(d("sd_log_ratio"), "%.2f %%"), format_percent(d("sd_log_a"), "%.2f %%"), format_percent(d("sd_log_b"), "%.2f %%"),
                 std::isfinite(d("correlation")) ? format_double("%.2f", d("correlation")) : "-"});
  }
  const auto& d = job.design;
  std::string s = "## ftbench duet (" + std::string(job.sequential ? "sequential" : "both sides at once") + "): " +
                  std::to_string(job.pairs.size()) + " pairs in " + format_double("%.0f", job.elapsed_s) + " of " +
                  format_double("%.0f", job.budget_s) + " s, stopped: " + job.stopped + "\n\n" +
                  format_table(t, {false, false, true, true, true, true, true, true, true}, TableStyle::markdown) +
                  "\nChange: the mean over pairs of log(B / A) of train_samples_per_s, as a ratio; its interval at " +
                  format_double("%.3g", 100 * d.interval_level()) + " % (Student's t over pairs). Regressed/improved: "
                  "the paired t test rejected no change at " + format_double("%.3g", d.look_alpha()) +
                  " a look (Holm over the rows; " + format_double("%.3g", d.family_alpha) + " over the job's " +
                  std::to_string(d.looks.size()) + " planned looks) and the change lies beyond +-" +
                  format_double("%.3g", 100 * d.min_effect) + " %; same: the interval lies inside it (no change beyond); cannot "
                  "tell: the budget or the last look came first, and the interval is what this job ruled out. sd "
                  "columns: over pairs, of the log.\n";
  for (const auto& r : j["rows"])
    if (r.contains("reason")) s += "- " + r["scenario"].get<std::string>() + ": " + r["reason"].get<std::string>() + "\n";
  if (!job.failure.empty()) s += "\nFailed: " + job.failure + "\n";
  s += "\nThe pairs (steal: CPU time the hypervisor took from this machine during the pair, all CPUs; load: the "
       "1-minute load average" +
       (job.rotate_s > 0 ? "; cores: where each side started, trades: how often the sides traded cores while both "
                           "ran, every " + format_double("%.3g", job.rotate_s) + " s"
                         : std::string()) +
       "):\n\n" + pairs_markdown(job);
  return s;
}

void write_duet(const DuetJob& job) {
  write_file_atomic(job.out + "/duet.json", duet_json(job).dump(2) + "\n");
  write_file_atomic(job.out + "/duet.md", duet_markdown(job));
}

}  // namespace ftb
