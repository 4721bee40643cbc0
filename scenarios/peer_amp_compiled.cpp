// peer_amp_compiled: the Python peer's best on a GPU, torch.compile(model)
// with fp16 autocast and GradScaler (compilation happens in the warm-up steps,
// which the median leaves out; wall time includes it). CUDA only. See
// scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {
namespace {

constexpr const char* kName = "peer_amp_compiled";
constexpr PeerVariant kVariant = PeerVariant::amp_compiled;

}  // namespace

ScenarioInfo peer_amp_compiled_scenario() {
  ScenarioInfo s;
  s.name = kName;
  s.technique = "the Python peer with torch.compile + fp16 autocast + GradScaler, CUDA only (the peer's best)";
  s.technique_settings = {RowSetting::precision};
  s.precision = Precision::fp16_mixed;
  s.unavailable = [](const RunConfig& c) { return peer_unavailable(c, kVariant); };
  s.run = [](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_peer(w, c, ctx, kName, kVariant);
  };
  return s;
}

}  // namespace ftb
