// peer: the reference's own baseline loop in Python (tools/peer.py), on this
// run's data, batches and initial weights: what ftbench's baseline is measured
// against (the report pairs the two by round). See scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "peer";
constexpr PeerVariant kVariant = PeerVariant::fp32;

}  // namespace

ScenarioInfo peer_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "the reference's baseline loop in Python: HF DistilBertForSequenceClassification + torch.optim.Adam, fp32 (tools/peer.py)";
  s.unavailable = [](const RunConfig& c) { return peer_unavailable(c, kVariant); };
  s.run = [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_peer(w, c, ctx, kName, kVariant);
  };
  return s;
}

}  // namespace ftb
