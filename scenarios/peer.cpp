// peer: the reference's own baseline loop in Python (tools/peer.py), on this
// run's data, batches and initial weights: what ftbench's baseline is measured
// against (the report pairs the two by round). See scenarios/peer_process.h.
#include "scenarios/peer_process.h"
#include "scenarios/registry.h"

namespace ftb {

ScenarioInfo peer_scenario() {
  return peer_row("peer", PeerVariant::fp32,
                  "the reference's baseline loop in Python: HF DistilBertForSequenceClassification + "
                  "torch.optim.Adam, fp32 (tools/peer.py)");
}
FTB_REGISTER_SCENARIO(peer_scenario, 1700);

}  // namespace ftb
