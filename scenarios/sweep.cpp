#include "scenarios/sweep.h"

#include "core/base/portable_random.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <iostream>
#include <thread>

#include "core/measure/datasheet_peaks.h"
#include "core/measure/device.h"
#include "core/measure/flops.h"
#include "core/base/errors.h"
#include "core/base/interrupt.h"
#include "core/train/warmup.h"
#include "scenarios/parallel/distributed_row.h"
#include "scenarios/parallel/rank_env.h"
#include "scenarios/parallel/rank_protocol.h"
#include "scenarios/profile_pass.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"

namespace ftb {
namespace {

int cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// world_size=0: one rank per GPU on CUDA; 2 on a CPU (with the cores split
// between them), so the rows of kind `ranks` run on any machine with 2 cores.
int auto_world_size(const torch::Device& device) {
  if (device.is_cuda()) return std::max(1, cuda_device_count());
  return std::min(2, cores());
}

constexpr int64_t kPeakSizeCpu = 2048, kPeakSizeCuda = 8192;  // 2048 leaves launch overhead in a GPU's figure

}  // namespace

// MFU is reported against peaks measured here, per precision (a GPU or CPU we
// have no table for is measured, never guessed). TF32 stays off for fp32. On
// CUDA, mixed-precision rows are measured against the bf16/fp16 peak. On a
// CPU they are against the fp32 peak: a bare bf16 matmul on an AVX2 CPU has
// no fast kernel (we measured ~1 GFLOP/s), while autocast's linear layers do
// better, so a bf16 "peak" would give MFU above 100 %.
std::map<Precision, double> measure_matmul_peaks(const torch::Device& device, int64_t* size_used) {
  const int64_t n = device.is_cuda() ? kPeakSizeCuda : kPeakSizeCpu;
  if (size_used) *size_used = n;
  std::map<Precision, double> peaks{{Precision::fp32, measure_matmul_tflops(device, torch::kFloat32, n)}};
  if (device.is_cuda()) {
    peaks[Precision::bf16_mixed] = measure_matmul_tflops(device, torch::kBFloat16, n);
    peaks[Precision::fp16_mixed] = measure_matmul_tflops(device, torch::kFloat16, n);
  }
  return peaks;
}

Sweep::Sweep(RunConfig config, DistEnv env)
    : config_(std::move(config)), env_(std::move(env)), device_(resolve_device(config_.device)) {
  check_world_size_asked(env_, config_.world_size);  // exit 2 on every rank, before any work
  if (env_.launched) config_.world_size = env_.world_size;
  else if (config_.world_size == 0) config_.world_size = auto_world_size(device_);
  selected_ = select_scenarios(config_.scenarios);  // unknown names fail before any work
  // Ranks of an outside launcher that would share a GPU: exit 2 before any work.
  const bool ranks_rows = std::any_of(selected_.begin(), selected_.end(),
                                      [](const ScenarioInfo* s) { return s->kind == RowKind::ranks; });
  if (ranks_rows && device_.is_cuda()) {
    const std::string shared = gpu_sharing_problem(env_, cuda_device_count(), std::getenv("CUDA_VISIBLE_DEVICES"));
    if (!shared.empty()) input_error("LOCAL_WORLD_SIZE", shared);
  }
  total_threads_ = config_.threads > 0 ? config_.threads : cores();
  const int local_ranks = env_.launched ? env_.local_world_size : config_.world_size;
  rank_threads_ = std::max(1, total_threads_ / std::max(1, local_ranks));
  threads_ = configure_threads(env_.launched ? rank_threads_ : config_.threads);
}

void Sweep::measure_peaks() {
  int64_t n = 0;
  const std::map<Precision, double> measured = measure_matmul_peaks(device_, &n);
  nlohmann::json by_precision = nlohmann::json::object();
  for (const auto& [p, tflops] : measured) by_precision[to_string(p)] = tflops;
  environment_["peak_matmul_tflops"] = {{"by_precision", by_precision}, {"device", device_.str()}, {"threads", threads_},
                 {"method", "best of 5 square matmuls per dtype, size grown to " + std::to_string(n) +
                                " while one takes < 50 ms"}};
  std::cerr << "measured fp32 matmul peak on " << device_.str() << " (" << threads_
            << " threads): " << measured.at(Precision::fp32) << " TFLOP/s\n";

  // The datasheet's, always recorded where known; MFU uses the one asked for.
  const std::string gpu = cuda_device_name(device_);
  const auto sheet = gpu.empty() ? std::nullopt : datasheet_peaks(gpu);
  nlohmann::json datasheet = nullptr;
  std::map<Precision, double> from_sheet;
  if (sheet) {
    nlohmann::json figures = nlohmann::json::object();
    for (Precision p : {Precision::fp32, Precision::bf16_mixed, Precision::fp16_mixed})
      if (auto v = datasheet_peak(*sheet, p)) figures[to_string(p)] = from_sheet[p] = *v;
    datasheet = {{"model", sheet->model}, {"by_precision", figures}, {"source", sheet->source}, {"dense", true}};
  }
  const PeakSetting setting = config_.peak;
  std::string note;
  switch (setting.source) {
    case PeakSource::measured: peaks_ = measured; break;
    case PeakSource::datasheet:
      peaks_ = from_sheet;
      if (!sheet) note = "no datasheet peak for " + (gpu.empty() ? device_.str() : gpu) + ": MFU not reported";
      break;
    case PeakSource::given:
      peaks_.clear();
      for (const auto& [p, tflops] : measured) peaks_[p] = setting.tflops;
      break;
  }
  nlohmann::json used = nlohmann::json::object();
  for (const auto& [p, tflops] : peaks_) used[to_string(p)] = tflops;
  environment_["mfu_peak"] = {{"source", to_string(setting.source)},
                              {"by_precision", used},
                              {"datasheet", datasheet},
                              {"note", note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note)}};
  if (!note.empty()) std::cerr << note << "\n";
}

nlohmann::json warm_up_record(const Workload& w, const RunConfig& c, const torch::Device& device, Precision p) {
  const WarmUp u = warm_up(w, c, device, p);
  std::cerr << "warm-up (untimed) on " << device.str() << " " << to_string(p) << ": " << u.seconds << " s";
  if (u.lengths > 0) std::cerr << " (" << u.lengths << " sequence lengths: " << u.lengths_s << " s)";
  std::cerr << "\n";
  return {{"device", device.str()},
          {"precision", to_string(p)},
          {"seconds", u.seconds},
          {"lengths_warmed", u.lengths},
          {"lengths_s", u.lengths_s}};
}

void Sweep::warm_up_rows(const Workload& workload) {
  // Rows of kind ranks started by our launcher run in their own processes,
  // which warm up themselves; under an outside launcher this process is the rank.
  std::set<std::pair<std::string, Precision>> done;
  nlohmann::json records = nlohmann::json::array();
  for (const auto* info : selected_) {
    const bool ranks_row = info->kind == RowKind::ranks;
    if (ranks_row && !env_.launched && config_.world_size > 1) continue;
    if (env_.launched && !ranks_row && env_.rank != 0) continue;  // rank 0 alone runs those
    const ScenarioResult header = row_header(*info, config_);
    const torch::Device device = ranks_row ? rank_device(config_, env_) : device_;
    if (header.status != Status::ok || !done.insert({device.str(), header.precision}).second) continue;
    records.push_back(warm_up_record(workload, config_, device, header.precision));
  }
  environment_["warmup"] = {
      {"passes", records},
      {"method", "before the first timed row, per device and precision: 3 untimed training steps of a fresh "
                 "model on the first batch (config's Adam and the fused kernel), one evaluation forward; on a GPU "
                 "with variable-length batches, one forward and backward at every training length of the run and "
                 "one forward at every evaluation length (cuDNN's plan per shape; lengths_warmed, lengths_s); "
                 "rows of kind ranks warm up in each rank before their timed row"}};
}

// The rows so far by name, and listed in the order they were asked for.
struct Sweep::Rows {
  const std::vector<const ScenarioInfo*>& selected;
  std::map<std::string, ScenarioResult> done;
  std::vector<ScenarioResult> in_order() const {
    std::vector<ScenarioResult> out;
    for (const auto* s : selected)
      if (auto it = done.find(s->name); it != done.end()) out.push_back(it->second);
    return out;
  }
};

void Sweep::prepare(const Workload& workload) {
  // build_workload checked one process; a rank trains on its shard only.
  const bool any_ranks_row = std::any_of(selected_.begin(), selected_.end(),
                                         [](const ScenarioInfo* s) { return s->kind == RowKind::ranks; });
  if (any_ranks_row && config_.world_size > 1) check_trains(workload, config_, config_.world_size);
  // Ranks other than 0 of an outside launcher measure no peak: several ranks
  // measuring at once on one GPU or on shared cores would measure each other.
  if (reports()) measure_peaks();
  warm_up_rows(workload);
  std::string loader_reason;
  const int prefetch = resolve_prefetch(config_, &loader_reason);
  environment_["loader"] = {{"prefetch", prefetch},
                            {"reason", loader_reason},
                            {"pin_memory", workload.train_loader_options(config_).pin_memory}};
}

uint64_t Sweep::record_round_orders() {
  // Each round runs the rows in its own seeded order (the same on every rank
  // of a launcher), so pairing rows by round cancels a position effect (the
  // first row after warm-up, the row after a distributed one) as well as drift.
  const uint64_t order_seed = splitmix64(config_.seed ^ 0x726f756e64ull);  // "round"
  environment_["repeats"] = {{"count", config_.repeats},
                             {"order", "rounds"},
                             {"shuffled", config_.repeats > 1},
                             {"seed", order_seed},
                             {"orders", nlohmann::json::array()},
                             {"method", "round i runs the i-th repeat of every row; with two or more repeats the rows "
                                        "run in a random order per round (Fisher-Yates on mt19937_64 seeded with seed "
                                        "+ i), with one in the order asked; orders lists them"}};
  return order_seed;
}

std::vector<std::vector<const ScenarioInfo*>> Sweep::phases() const {
  // Every row here; under an outside launcher the rows of kind ranks (all
  // ranks together), then rank 0 alone the single-process rows.
  std::vector<std::vector<const ScenarioInfo*>> phases(1);
  for (const auto* info : selected_)
    if (!env_.launched || info->kind == RowKind::ranks) phases[0].push_back(info);
  if (env_.launched && env_.rank == 0) {
    phases.emplace_back();
    for (const auto* info : selected_)
      if (info->kind == RowKind::single_process) phases[1].push_back(info);
  }
  return phases;
}

std::vector<const ScenarioInfo*> Sweep::round_order(const std::vector<const ScenarioInfo*>& phase, int round,
                                                    uint64_t order_seed) {
  std::vector<const ScenarioInfo*> order = phase;
  if (config_.repeats > 1) {
    std::mt19937_64 rng(order_seed + static_cast<uint64_t>(round));
    portable_shuffle(order, rng);
  }
  nlohmann::json names = nlohmann::json::array();
  for (const auto* info : order) names.push_back(info->name);
  environment_["repeats"]["orders"].push_back(std::move(names));
  return order;
}

void Sweep::run_row(const ScenarioInfo& info, int round, const Workload& workload, const std::string& out_dir,
                    const std::vector<LoopCallback*>& callbacks, const RowDone& row_done, Rows& rows) {
  const bool ranks_row = info.kind == RowKind::ranks;
  if (env_.launched && !ranks_row && threads_ != total_threads_) {
    // Alone now (the other ranks are done): every core, and a CPU peak to match.
    threads_ = configure_threads(config_.threads);
    if (!device_.is_cuda()) measure_peaks();
  }
  if (round == 0) {
    ScenarioResult header = row_header(info, config_);
    if (header.status == Status::skipped && reports())
      std::cerr << "[" << header.scenario << "] skipped: " << header.reason << "\n";
    const bool skipped = header.status != Status::ok;
    rows.done[info.name] = std::move(header);
    if (skipped) {
      if (reports()) row_done(rows.in_order(), environment_);
      return;
    }
  }
  ScenarioResult& row = rows.done[info.name];
  if (row.status != Status::ok) return;  // skipped, or failed in an earlier round
  ScenarioContext ctx;
  if (reports()) ctx.callbacks = callbacks;
  ctx.peak_tflops = peaks_;
  ctx.repeat = round;
  // Ranks of an outside launcher on CPUs: rank 0 measured its share of the
  // cores, and the row's denominator is every rank's share.
  if (env_.launched && ranks_row && !device_.is_cuda())
    for (auto& [precision, tflops] : ctx.peak_tflops) tflops *= env_.world_size;
  ctx.out_dir = out_dir;
  const bool on_ranks = ranks_row && !env_.launched && config_.world_size > 1;
  RepeatFn repeat = nullptr;
  if (on_ranks)
    repeat = [&, info_ptr = &info](const Workload&, const RunConfig& c, const ScenarioContext&) {
      return run_on_ranks(*info_ptr, c, rank_threads_);
    };
  run_repeat(row, info, workload, config_, ctx, repeat);
  row.threads = ranks_row && (env_.launched || on_ranks) ? rank_threads_ : threads_;
  if (row.status == Status::failed) {
    std::cerr << "[" << row.scenario << "] FAILED"
              << (env_.launched ? " on rank " + std::to_string(env_.rank) : "") << ": " << row.reason << "\n";
    any_failed_ = true;
  }
  if (reports()) row_done(rows.in_order(), environment_);
}

void Sweep::profile_rows(const Workload& workload, const std::string& out_dir, const RowDone& row_done,
                         Rows& rows) {
  for (const ScenarioInfo* info : selected_) {
    auto it = rows.done.find(info->name);
    if (it == rows.done.end() || it->second.status != Status::ok) continue;
    ScenarioResult& row = it->second;
    if (info->kind == RowKind::ranks && config_.world_size > 1)
      row.profile = profile_ranks_row(*info, config_, out_dir, rank_threads_);
    else
      row.profile = profile_row(*info, workload, config_, out_dir);
    row_done(rows.in_order(), environment_);
  }
}

void Sweep::check_peak_after(const RowDone& row_done, const Rows& rows) {
  // The peak behind MFU again, after the rows: a peak measured beside other
  // load (a build) inflates MFU silently; a move beyond 10 % says so.
  const auto before = environment_["peak_matmul_tflops"]["by_precision"];
  const std::map<Precision, double> after = measure_matmul_peaks(device_, nullptr);
  nlohmann::json by_precision = nlohmann::json::object();
  for (const auto& [p, tflops] : after) by_precision[to_string(p)] = tflops;
  const double b = before.value("fp32", 0.0), a = after.at(Precision::fp32);
  const double change = b > 0 ? a / b - 1 : 0;
  nlohmann::json check = {{"by_precision", by_precision}, {"fp32_change", change}, {"threshold", 0.10}};
  if (std::abs(change) > 0.10) {
    check["flag"] = "the fp32 matmul peak moved " + std::to_string(static_cast<int>(std::lround(100 * change))) +
                    " % between before and after the rows: the machine's load changed during the run, so MFU "
                    "(and any ratio across that change) reflects it";
    std::cerr << "warning: " << check["flag"].get<std::string>() << "\n";
  }
  environment_["peak_matmul_tflops_after"] = std::move(check);
  row_done(rows.in_order(), environment_);
}

std::vector<ScenarioResult> Sweep::run(const Workload& workload, const std::string& out_dir,
                                       const std::vector<LoopCallback*>& callbacks, const RowDone& row_done) {
  prepare(workload);
  const uint64_t order_seed = record_round_orders();
  Rows rows{selected_, {}};
  try {
    for (const auto& phase : phases()) {
      // Repeats run in rounds (ABC ABC ABC, not AAA BBB CCC): the i-th repeats
      // of all rows share the machine's state at that time (clocks, thermals,
      // other tenants), so the ratio of two rows is paired by round.
      for (int round = 0; round < config_.repeats && !(any_failed_ && env_.launched); ++round) {
        for (const ScenarioInfo* info : round_order(phase, round, order_seed)) {
          run_row(*info, round, workload, out_dir, callbacks, row_done, rows);
          // Under a launcher a failed rank leaves its peers waiting in a collective:
          // stop, so the launcher sees it and stops them all.
          if (any_failed_ && env_.launched) break;
        }
      }
    }
  } catch (const Interrupted& e) {
    // run_repeat marked the row in progress; the rows not started stay out.
    interrupted_ = e.signal();
    if (reports()) {
      std::cerr << "\ninterrupted by " << interrupt_signal_name(interrupted_)
                << ": writing the report of the finished rows (a second signal ends ftbench at once)\n";
      row_done(rows.in_order(), environment_);
    }
  }
  // A signal after the last row's check still means the run was stopped.
  if (!interrupted_) interrupted_ = interrupt_signal();
  if (config_.profile > 0 && reports() && !interrupted_ && !env_.launched) {
    try {
      profile_rows(workload, out_dir, row_done, rows);
    } catch (const Interrupted& e) {
      interrupted_ = e.signal();
      row_done(rows.in_order(), environment_);
    }
  }
  if (reports() && !interrupted_ && !env_.launched) check_peak_after(row_done, rows);
  return rows.in_order();
}

}  // namespace ftb
