// A scenario is one row of the speed-up table: one technique applied to the
// shared fine-tuning core. Config in (Workload + RunConfig), result out.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ftb {

struct Workload;
struct RunConfig;

enum class Status { ok, skipped, failed };
std::string to_string(Status s);
Status status_from_string(const std::string& s);

// Per-epoch record (train metrics averaged over the epoch's steps).
struct EpochRecord {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0, train_acc = 0;
  double val_loss = 0, val_acc = 0;
  double time_s = 0;  // training time of the epoch (excludes validation)
};

// One training step as measured: kept raw so warm-up is sliced off, not hidden.
struct StepRecord {
  int64_t step = 0, epoch = 0;
  double step_ms = 0;     // wall time of the step, device-synchronised
  double loss = 0;
  double wait_ms = 0;     // time the step waited on the data loader
  int64_t samples = 0, tokens = 0;  // tokens = non-pad tokens of the batch
  int64_t seq_len = 0;              // padded length T the device computed on
};

// One repeat of a scenario.
struct RepeatSample {
  double wall_time_s = 0;         // fine-tuning loop only (no data prep)
  double train_samples_per_s = 0;
  double train_tokens_per_s = 0;  // non-pad tokens
  double val_acc = 0, test_acc = 0;
  int64_t peak_bytes = 0;
};

struct ScenarioResult {
  std::string scenario;
  Status status = Status::ok;
  std::string reason;            // why skipped/failed; empty when ok
  int world_size = 1;
  std::string device = "cpu";    // "cpu", "cuda:0", ...
  std::string precision = "fp32";
  double wall_time_s = 0;        // median over repeats
  double train_samples_per_s = 0, train_tokens_per_s = 0;  // median
  int64_t train_samples = 0;     // samples trained on, over all ranks and epochs (last repeat)
  double val_acc = 0, test_acc = 0;  // of the last repeat
  double test_loss = 0;
  std::vector<EpochRecord> epochs;   // of the last repeat
  std::vector<StepRecord> steps;     // of the last repeat
  int64_t peak_bytes = 0;            // max over repeats
  std::string peak_bytes_source;     // "cuda_max_allocated" | "process_max_rss"
  std::vector<RepeatSample> repeats;
  // Efficiency: model FLOPs of a training step over the measured step time,
  // divided by the peak measured on this machine (see core/flops.h).
  double step_ms_median = 0;     // over timed steps (warm-up excluded)
  int64_t warmup_steps = 0;
  double model_tflops_per_s = 0;
  double mfu = 0;                // against environment.peak_matmul_tflops
  double loader_wait_s = 0;      // total time the step waited on data
  // Technique-specific measurements every scenario reports (0 when unused).
  int64_t skipped_steps = 0;     // optimizer steps skipped by loss scaling (inf/NaN gradients)
  double capture_time_s = 0;     // CUDA-graph capture/warm-up, excluded from wall_time_s
  int64_t checkpoint_epoch = 0;  // epoch whose checkpoint produced test accuracy; 0 = last weights
  nlohmann::json extra = nlohmann::json::object();  // scenario-specific keys
  int threads = 0;  // intra-op threads of each process (on CPU: how the cores were split between ranks)

  // Distributed rows (c10d, world_size ranks); backend empty = one process.
  struct Distributed {
    std::string backend;              // "gloo" | "nccl"
    std::string strategy;             // "ddp" | "sharded" | "zero2"
    int64_t bucket_cap_bytes = 0;
    int64_t buckets = 0;
    double collective_wait_s = 0;     // rank 0's host time blocked in collectives (training loop)
    int64_t optimizer_state_bytes_per_rank = 0;
    int64_t grad_bytes_per_rank = 0;  // gradient storage a rank keeps between steps
    int64_t grad_staging_bytes = 0;   // zero2: bucket copies in flight during backward
    double per_rank_samples_per_s = 0;
    std::string comm_fallback;        // collectives emulated on this backend, if any
  } distributed;
};

}  // namespace ftb

namespace ftb {

class LoopCallback;

// What the runner hands a scenario besides the workload and config.
struct ScenarioContext {
  std::vector<LoopCallback*> callbacks;  // progress bar etc.
  int repeat = 0;                        // 0-based
  double peak_tflops = 0;                // measured fp32 matmul peak of the device (MFU)
  // Measured peaks by the precision a row reports ("bf16-mixed" -> bf16
  // matmul peak); rows whose precision is missing use peak_tflops.
  std::map<std::string, double> peak_tflops_by_precision;
  std::string out_dir;                   // the run's report folder (checkpoints go below it)
};

struct ScenarioInfo {
  std::string name;       // = --scenarios name = "scenario" in the report = chart legend
  std::string technique;  // one line for `ftbench list`
  std::vector<std::string> aliases;  // e.g. "compiled" for cuda_graph
  // Empty when the scenario can run with this config on this machine,
  // otherwise why not (the row is then reported as skipped with it).
  std::function<std::string(const RunConfig&)> unavailable;
  // One repeat. Fills the measurements of ScenarioResult; the runner fills
  // the aggregates (medians over repeats, MFU) and catches failures.
  std::function<ScenarioResult(const Workload&, const RunConfig&, const ScenarioContext&)> run;
  std::string precision = "fp32";  // what the row reports, also when skipped
  // Where the precision depends on the config (distributed rows): overrides `precision`.
  std::function<std::string(const RunConfig&)> precision_of;
  // Runs as world_size ranks on c10d (one process per rank; the launcher
  // starts them), not in the calling process.
  bool distributed = false;
};

}  // namespace ftb
