// The steps `regress` takes whichever reference it judges against (history
// or baseline runs): reading and checking tonight's reports, the rule in
// words, and judge_scenarios, which builds every row and asks a throughput
// judge (the nightly rule, or the baseline rule) for the throughput rows.
// Internal to regress_*.cpp; the public API is regress.h.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reports/analysis/regress.h"

namespace ftb::regress_detail {

// Tonight's runs of one scenario: the first report's repeats, then each
// further report's (its reruns).
struct TonightRuns {
  std::vector<RepeatSample> first;
  std::vector<std::vector<RepeatSample>> reruns;
  std::vector<RepeatSample> pooled() const {
    std::vector<RepeatSample> all = first;
    for (const auto& r : reruns) all.insert(all.end(), r.begin(), r.end());
    return all;
  }
};

// A reference run's operator profile of `scenario` (nullopt: none).
using ProfileOf = std::function<std::optional<OpProfile>(const RunRepeats&, const std::string& scenario)>;

using ThroughputJudge = std::function<void(std::vector<MetricVerdict*>&, const std::vector<std::vector<RunRepeats>>&,
                                           const std::vector<TonightRuns>&, const std::vector<const NoiseEstimate*>&)>;

// InputError naming the noise file when it was measured for another preset or config.
void check_noise_matches(const RegressOptions& o, const RunKey& key, const std::string& current_where);
JudgeContext context_for(const RegressOptions& o, const Report& current);
std::string rule_text(const RegressOptions& o, bool from_history);
// Rows for every ok scenario of tonight's first report: throughput judged by
// `throughput` (all scenarios at once, every run of tonight that has the
// scenario ok), accuracy and memory by their thresholds on the pooled
// repeats; then, beside each regressed row, what changed between its
// reference runs and tonight's (suspects.h).
void judge_scenarios(RegressSummary& s, const std::vector<Report>& current, const std::vector<std::string>& where,
                     const RegressOptions& o,
                     const std::function<std::vector<RunRepeats>(const std::string&)>& reference, bool from_history,
                     const ThroughputJudge& throughput, const ProfileOf& profile_of);
// Tonight's reports: each read and checked; every one after the first of the
// same machine, preset and config as the first (InputError naming it).
std::vector<Report> read_tonight(const std::vector<NamedReport>& current, const RegressOptions& o);
std::string tonight_words(const std::vector<NamedReport>& current);

}  // namespace ftb::regress_detail
