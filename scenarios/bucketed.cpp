// bucketed: baseline with length-bucketed batching. Reviews of similar length
// share a batch, padded to its longest (IMDB under bert-base-uncased: mean
// 273 tokens; random batches of 12 padded to their longest still average
// ~500, similar-length batches ~274), and the batches' order is still random
// each epoch (core/train/batching.h). Same model, data, Adam and precision as
// baseline: what it buys is less padding computed on; the report's
// data.real_token_share says how much of each batch was text.
#include "scenarios/common.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kBucketedName = "bucketed";

ScenarioResult run_bucketed(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  const RunConfig c = with_bucketing(config);  // the only difference from baseline
  auto r = run_plain_loop(w, c, ctx, kBucketedName);
  r.extra["padding"] = "longest (forced: bucketing)";
  r.extra["bucketing"] = "on";
  return r;
}

}  // namespace

ScenarioInfo bucketed_scenario() {
  ScenarioInfo s;
  s.name = kBucketedName;
  s.technique = "baseline with length-bucketed batches (similar lengths, padded to the longest, order still shuffled)";
  s.stack = {"bucketing"};
  s.unavailable = runs_anywhere;
  s.run = run_bucketed;
  return s;
}
FTB_REGISTER_SCENARIO(bucketed_scenario, 600);

}  // namespace ftb
