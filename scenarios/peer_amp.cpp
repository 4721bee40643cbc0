// peer_amp: the Python peer under fp16 autocast with torch.amp.GradScaler,
// what ftbench's amp row is measured against. CUDA only. See
// scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "peer_amp";
constexpr PeerVariant kVariant = PeerVariant::amp;

}  // namespace

ScenarioInfo peer_amp_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "the Python peer with fp16 autocast + GradScaler, CUDA only (the reference's step 3 in Python)";
  s.technique_settings = {RowSetting::precision};
  s.precision = Precision::fp16_mixed;
  s.unavailable = [](const RunConfig& c) { return peer_unavailable(c, kVariant); };
  s.run = [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_peer(w, c, ctx, kName, kVariant);
  };
  return s;
}

}  // namespace ftb
