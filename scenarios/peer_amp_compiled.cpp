// peer_amp_compiled: the Python peer's best on a GPU, torch.compile(model)
// with fp16 autocast and GradScaler (compilation happens in the warm-up steps,
// which the median leaves out; wall time includes it). CUDA only. See
// scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo peer_amp_compiled_scenario() {
  return peer_row("peer_amp_compiled", PeerVariant::amp_compiled,
                  "the Python peer with torch.compile + fp16 autocast + GradScaler, CUDA only (the peer's best)");
}
FTB_REGISTER_SCENARIO(peer_amp_compiled_scenario, 1900);

}  // namespace ftb
