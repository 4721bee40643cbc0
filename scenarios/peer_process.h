// The Python peer (tools/peer.py) as rows of the table: the reference's own
// loop (Hugging Face DistilBertForSequenceClassification + torch.optim.Adam)
// in the torch of the project's venv, on exactly this run's data and initial
// weights, timed like ftbench's loop. A row's repeat
//   1. writes the workload's initial model (HF folder) and the batches in the
//      order ftbench's loaders hand them out (train per epoch, val, test) as
//      one safetensors file, below the report folder;
//   2. runs `python tools/peer.py` on them (its own process, stdout/stderr
//      captured, one-line reason on failure);
//   3. turns its JSON (schema ftbench.peer/1) into the row's measurements.
// Paired with baseline by round like any row (scenarios/sweep.h), so the
// report's paired ratio is ftbench's throughput against the peer's.
//
// The python is $FTB_PEER_PYTHON, else $FTB_PYTHON, else the build's
// FTB_PEER_PYTHON (CMake; by default <source>/.venv/bin/python). The rows are
// skipped with the reason when it lacks torch or transformers
// (`tools/setup.sh --peer` installs them), or its torch is not the LibTorch
// version ftbench is built on (then the two sides would not be the same build).
#pragma once

#include <string>

#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

// The peer's variants: its baseline, and on a GPU its AMP (autocast fp16 +
// torch.amp.GradScaler) and AMP + torch.compile(model) ones.
enum class PeerVariant { fp32, amp, amp_compiled };

// Where the peer runs: the python (see above) and tools/peer.py of this source tree.
struct PeerCommand {
  std::string python, script;
};
PeerCommand peer_command();

// Empty when the variant can run with this config here, otherwise why not.
std::string peer_unavailable(const RunConfig& c, const PeerVariant& v);

// One repeat of a peer row named `scenario` (throws std::runtime_error with the
// peer's last stderr line when it fails).
ScenarioResult run_peer(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                        const std::string& scenario, const PeerVariant& v);

// The registry entry of a peer row: `name` runs `v` (skipped where
// peer_unavailable says so); the AMP variants report fp16-mixed, which is
// their technique. Each row file (peer.cpp, peer_amp.cpp,
// peer_amp_compiled.cpp) gives its name, variant and technique.
ScenarioInfo peer_row(const std::string& name, PeerVariant v, std::string technique);

}  // namespace ftb
