// peer_amp: the Python peer under fp16 autocast with torch.amp.GradScaler,
// what ftbench's amp row is measured against. CUDA only. See
// scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo peer_amp_scenario() {
  return peer_row("peer_amp", PeerVariant::amp,
                  "the Python peer with fp16 autocast + GradScaler, CUDA only (the reference's step 3 in Python)");
}
FTB_REGISTER_SCENARIO(peer_amp_scenario, 1800);

}  // namespace ftb
