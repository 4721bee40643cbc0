// The result record of one row, and its JSON: the one place where a
// ScenarioResult is written and read, used by the report writer and reader
// and by the rank protocol alike (nlohmann's to_json/from_json idiom).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/op_profile.h"
#include "core/measure/phases.h"
#include "core/measure/precision.h"
#include "core/measure/records.h"

namespace ftb {

enum class Status { ok, skipped, failed };
std::string to_string(Status s);
Status status_from_string(const std::string& s);

// Settings a row may differ from baseline in. A row's technique_settings are
// the ones its technique changes (amp: precision; ddp: ranks and the thread
// split); any other difference is a parity break that reports/analysis/parity.h
// lists in the report and the table.
enum class RowSetting { optimizer, precision, world_size, threads, device, batch_size };
std::string to_string(RowSetting s);  // "optimizer", "precision", "ranks", "threads", "device", "batch_size"
RowSetting row_setting_from_string(const std::string& s, const std::string& where);  // InputError naming `where`

// One repeat of a scenario, as measured: what each repeat keeps in the report
// ("samples"); the aggregate fields of ScenarioResult are computed from these
// by aggregate_repeats().
struct RepeatSample {
  double wall_time_s = 0;         // fine-tuning loop only (no data prep)
  double train_samples_per_s = 0;
  double train_tokens_per_s = 0;  // non-pad tokens
  double val_acc = 0, test_acc = 0;
  int64_t peak_bytes = 0;
  double step_ms_median = 0;      // steady-state step (warm-up excluded)
  int64_t train_samples = 0;
  // Steady-state throughput: post-warm-up samples (all ranks) over post-warm-up
  // step and loader-wait time (steady_throughput, core/train/train_loop.h).
  double steady_samples_per_s = 0;
  // Seconds per phase of this repeat (rank 0's); clock none = not measured.
  PhaseTimes phases{};
  // Which test examples this repeat's model got right, in the split's order
  // (empty: not kept, e.g. evaluation capped by eval_max_batches). JSON:
  // "test_correct": {"examples": n, "base64": bits} (core/base/bit_pack.h).
  std::vector<bool> test_correct{};
};

// One row of the report. Rule for fields: what every row can have is a field
// (0 or empty when the row does not use it); what only one scenario measures
// goes in `extra`. The measurements are of two kinds, kept apart:
//  - per repeat: `repeats` (one RepeatSample each);
//  - aggregate: the medians/maxima computed from `repeats` by
//    aggregate_repeats() (phases too: each phase's median); the detail
//    records (epochs, steps, technique counters) are those of the last
//    repeat, as the report says ("aggregate" key).
struct ScenarioResult {
  std::string scenario;
  Status status = Status::ok;
  std::string reason;            // why skipped/failed; empty when ok
  int world_size = 1;
  std::string device = "cpu";    // "cpu", "cuda:0", ...
  Precision precision = Precision::fp32;
  std::string optimizer;         // what stepped: optimizer_label() (core/train/optimizer.h)
  double wall_time_s = 0;        // median over repeats
  double train_samples_per_s = 0, train_tokens_per_s = 0;  // median
  int64_t train_samples = 0;     // samples trained on, over all ranks and epochs (last repeat)
  double val_acc = 0, test_acc = 0;  // median over repeats
  double test_loss = 0;
  std::vector<EpochRecord> epochs;   // of the last repeat
  std::vector<StepRecord> steps;     // of the last repeat
  int64_t peak_bytes = 0;            // max over repeats
  std::string peak_bytes_source;     // "cuda_max_allocated" | "rss_peak_since_row_start" | "process_max_rss" (core/measure/device.h)
  int64_t parameter_count = 0;       // the model's parameters (elements); 0 = not recorded
  // Distributed rows: the device bytes each rank held per phase of the loop,
  // measured (last repeat; scenarios/parallel/held_memory.h), beside what
  // max_device_bytes checked for that phase (modelled from the layout).
  struct HeldPhase {
    std::vector<int64_t> per_rank;  // each rank's measured peak
    int64_t modelled_bytes = 0;
    int64_t peak_bytes() const;     // the largest rank's
  };
  struct HeldPhases {
    std::string source;  // "tracked_tensors" | "cuda_max_allocated"; empty = not measured
    HeldPhase training, evaluation;  // evaluation: validation, test and the metric sums
  } memory_phases;
  std::vector<RepeatSample> repeats;
  // Efficiency: model FLOPs of a training step over the measured step time,
  // divided by the peak measured on this machine (see core/measure/flops.h).
  double step_ms_median = 0;     // over timed steps (warm-up excluded)
  int64_t warmup_steps = 0;
  double model_tflops_per_s = 0;
  double mfu = 0;                // model_tflops_per_s / (mfu_peak_tflops x devices)
  double mfu_peak_tflops = 0;    // per device, for this row's precision (environment.mfu_peak); 0 = none
  double loader_wait_s = 0;      // total time the step waited on data
  double real_token_share = 0;   // non-pad over padded tokens of the training batches (last repeat); 0 = unknown
  // Where the time went (rank 0's; each phase's median over repeats, the last
  // repeat's in reports from before per-repeat phases): train phases of every
  // step, validation and test; clock none = not measured (a skipped row, an old report).
  PhaseTimes phases;
  // Technique-specific measurements every scenario reports (0 when unused).
  int64_t skipped_steps = 0;     // optimizer steps skipped by loss scaling (inf/NaN gradients)
  double capture_time_s = 0;     // CUDA-graph capture/warm-up, excluded from wall_time_s
  int64_t checkpoint_epoch = 0;  // epoch whose checkpoint produced test accuracy; 0 = last weights
  nlohmann::json extra = nlohmann::json::object();  // scenario-specific keys
  // Operators of a few steps profiled after the repeats, untimed (`run
  // --profile`, scenarios/profile_pass.h); nullopt = not asked for.
  std::optional<OpProfile> profile;
  int threads = 0;  // intra-op threads of each process (on CPU: how the cores were split between ranks)
  // What the row's technique changes (parity) and what it stacks on baseline
  // (the ladder), as the build that ran it defined them (ScenarioInfo), so a
  // report re-rendered later shows what that run did, not today's registry.
  std::vector<RowSetting> technique_settings;
  std::vector<std::string> stack;

  // Distributed rows (c10d, world_size ranks); backend empty = one process.
  struct Distributed {
    std::string backend;              // "gloo" | "nccl"
    std::string strategy;             // "ddp" | "sharded" | "zero2"
    int64_t bucket_cap_bytes = 0;
    int64_t buckets = 0;
    double collective_wait_s = 0;     // rank 0's host time blocked in collectives (training steps)
    int64_t optimizer_state_bytes_per_rank = 0;
    int64_t grad_bytes_per_rank = 0;  // gradient storage a rank keeps between steps
    int64_t grad_staging_bytes = 0;   // zero2: bucket copies in flight during backward
    double per_rank_samples_per_s = 0;
    std::string comm_fallback;        // collectives emulated on this backend, if any
    // Who started the ranks and where they ran (rank 0 gathers every rank's
    // host name through the group's store); "" / 0 / empty = not recorded.
    std::string launcher{};           // "ftbench" | "torchrun" | "environment" | "slurm" | "openmpi" | "none"
    int64_t nodes = 0;                // distinct host names among the ranks
    std::vector<std::string> hosts{}; // each rank's host name, by rank
    // NCCL: the error-handling and watchdog modes the process group ran
    // with (variable -> its value and who set it: "ftbench", "user", or
    // "unset" with value "" for PyTorch's default); empty on Gloo.
    struct EnvSetting {
      std::string value, set_by;
      bool operator==(const EnvSetting& o) const { return value == o.value && set_by == o.set_by; }
    };
    std::map<std::string, EnvSetting> error_handling{};
    // zero3 (FSDP's MixedPrecision): the dtype its units were all-gathered,
    // held whole and computed in (param_dtype) and its gradients
    // reduce-scattered in (reduce_dtype): "fp32" | "bf16" | "fp16"; "" = not
    // recorded (the other strategies, reports before it).
    std::string gather_dtype{}, reduce_dtype{};
    int64_t param_bytes_per_rank = 0;     // parameter storage on the device
    int64_t host_bytes_per_rank = 0;      // offload: master shard, its gradients and Adam's state on the host
    int64_t offload_bytes_per_step = 0;   // offload: device-to-host + host-to-device copies per step
    double offload_wait_s = 0;            // offload: rank 0's host time blocked in those copies
    // Bytes rank 0 handed to each collective per training step, by collective
    // ("all_reduce", "reduce_scatter", "all_gather", "broadcast"); the
    // training steps' only (before ftbench.report/5 evaluation's traffic was
    // included, divided by the training steps); empty = not recorded.
    std::map<std::string, int64_t> collective_bytes_per_step{};
    // Evaluation's apart (validation and test passes, every metric sum), over
    // the whole run, and rank 0's host time blocked in them; collective_wait_s
    // is the training steps' only.
    std::map<std::string, int64_t> evaluation_collective_bytes{};
    double evaluation_collective_wait_s = 0;
  } distributed;
};

// Fills the aggregate fields from r.repeats: medians of wall time,
// throughput, step time and accuracy, maximum of peak memory.
void aggregate_repeats(ScenarioResult& r);

// One result object of report.json. Steps are left out unless with_steps
// (they go to steps.csv; the rank protocol carries them), so
// result_from_json(to_json(r)) equals r except for r.steps.
// Non-finite numbers (a diverged loss) are written as null and read back as NaN.
nlohmann::json to_json(const ScenarioResult& r, bool with_steps = false);
// InputError naming the missing key or wrong type with its JSON path, which
// starts with `path` (a report passes "results[3]").
ScenarioResult result_from_json(const nlohmann::json& j, const std::string& path = "");
// One object of a result's "epochs" (epoch, train_loss, train_acc, val_loss,
// val_acc, time_s); also how the Python peer's epochs are read.
EpochRecord epoch_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace ftb
