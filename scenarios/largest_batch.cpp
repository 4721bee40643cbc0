// largest_batch: baseline at the largest batch that fits the device, with
// Adam's learning rate scaled by the square-root rule; the table compares its
// time and accuracy with baseline's batch. The search trains a throwaway
// model of the workload for two steps per candidate batch on sequences
// padded to max_length (the longest any batch can be), in the row's
// precision, and treats c10::OutOfMemoryError as "does not fit". Its time is
// the row's setup, reported in extra.search_s and never in the row's wall
// time; the batches tried are in extra.search. One search per configuration
// and device in a process (later repeats reuse it: extra.search_reused); the
// row trains at kLargestBatchFraction of the batch found (extra.batch_found);
// with accumulate=K that is the micro-batch (the search's two steps are
// one micro-batch's each), K of them a step. CUDA only: a CPU's memory
// does not refuse an allocation cleanly (the system swaps, then kills), so a
// search there would take the machine down rather than find a limit.
#include "scenarios/largest_batch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "core/measure/device.h"
#include "core/train/optimizer.h"
#include "core/measure/records.h"
#include "core/train/train_step.h"
#include "core/train/warmup.h"
#include "scenarios/common.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"

namespace ftb {

int64_t largest_fitting_batch(int64_t start, int64_t cap, const std::function<bool(int64_t)>& fits,
                              std::vector<std::pair<int64_t, bool>>* tried) {
  auto ask = [&](int64_t b) {
    const bool ok = fits(b);
    if (tried) tried->emplace_back(b, ok);
    return ok;
  };
  if (start < 1 || start > cap || !ask(start)) return 0;
  int64_t good = start, bad = 0;  // bad = 0: no failure seen yet
  while (bad == 0 && good < cap) {
    const int64_t next = std::min(cap, good * 2);
    if (ask(next)) good = next;
    else bad = next;
  }
  while (bad != 0 && bad - good > 1) {
    const int64_t mid = good + (bad - good) / 2;
    if (ask(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

double sqrt_scaled_lr(double base_lr, int64_t base_batch, int64_t batch) {
  return base_lr * std::sqrt(static_cast<double>(batch) / static_cast<double>(base_batch));
}

int64_t training_batch(int64_t found, double fraction, int64_t configured) {
  const auto scaled = static_cast<int64_t>(std::floor(fraction * static_cast<double>(found)));
  return std::min(found, std::max(configured, scaled));
}

const BatchSearch& search_once(const std::string& key, const std::function<BatchSearch()>& search, bool* reused) {
  static std::mutex mutex;
  static std::map<std::string, BatchSearch> done;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = done.find(key);
  if (reused) *reused = it != done.end();
  if (it == done.end()) it = done.emplace(key, search()).first;
  return it->second;
}

namespace {

constexpr const char* kLargestBatchName = "largest_batch";
constexpr int64_t kBatchCap = 4096;

// Two training steps of a fresh model at batch b, every row max_length tokens.
bool batch_fits(const Workload& w, const RunConfig& c, const torch::Device& device, int64_t b) {
  try {
    const int64_t vocab = w.model_config.vocab_size;
    Batch batch;
    batch.input_ids = torch::randint(vocab, {b, c.max_length}, torch::dtype(torch::kInt64).device(device));
    batch.attention_mask = torch::ones({b, c.max_length}, torch::dtype(torch::kInt64).device(device));
    batch.labels = torch::randint(2, {b}, torch::dtype(torch::kInt64).device(device));
    batch.real_tokens = b * c.max_length;
    train_throwaway(w, c, batch, device, Precision::fp32, 2);
    synchronize(device);
    return true;
  } catch (const c10::OutOfMemoryError&) {
    release_cached_memory(device);
    return false;
  }
}

// What decides the search's answer: the device and the memory a step needs.
std::string search_key(const Workload& w, const RunConfig& c, const torch::Device& device, int64_t cap) {
  const auto& m = w.model_config;
  return device.str() + " " + config_to_json(m).dump() + " max_length=" + std::to_string(c.max_length) +
         " batch_size=" + std::to_string(c.batch_size) + " cap=" + std::to_string(cap);
}

ScenarioResult run_largest_batch(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  const auto device = resolve_device(config.device);
  // A step takes accumulate micro-batches of the batch searched for: all of
  // them must fit the training split.
  const int64_t cap = std::min<int64_t>(kBatchCap, static_cast<int64_t>(w.train.size()) / config.accumulate);
  bool reused = false;
  const BatchSearch& s = search_once(search_key(w, config, device, cap), [&] {
    BatchSearch out;
    const auto t0 = Clock::now();
    out.found = largest_fitting_batch(config.batch_size, cap,
                                      [&](int64_t n) { return batch_fits(w, config, device, n); }, &out.tried);
    release_cached_memory(device);
    out.seconds = seconds_since(t0);
    return out;
  }, &reused);
  if (s.found == 0) throw std::runtime_error(does_not_fit_reason(config, "not even the configured batch fits"));
  const int64_t b = training_batch(s.found, kLargestBatchFraction, config.batch_size);
  RunConfig c = config;
  c.batch_size = static_cast<int>(b);
  c.eval_batch_size = config.eval_batch_size > 0 ? config.eval_batch_size : config.batch_size;
  c.lr = sqrt_scaled_lr(config.lr, config.batch_size, b);
  auto r = run_plain_loop(w, c, ctx, kLargestBatchName);
  nlohmann::json search = nlohmann::json::array();
  for (const auto& [n, ok] : s.tried) search.push_back({{"batch_size", n}, {"fits", ok}});
  r.extra["batch_size"] = b;  // what it trained at
  r.extra["batch_found"] = s.found;
  r.extra["batch_fraction"] = kLargestBatchFraction;
  r.extra["lr"] = c.lr;
  r.extra["lr_rule"] = "sqrt: lr x sqrt(batch / " + std::to_string(config.batch_size) + ") (Adam; Malladi et al. 2022)";
  r.extra["search"] = search;
  r.extra["search_s"] = s.seconds;  // once per configuration and device in this process
  r.extra["search_reused"] = reused;  // true: an earlier repeat's search
  r.extra["search_cap"] = cap;
  return r;
}

std::string largest_batch_unavailable(const RunConfig& c) {
  if (!resolve_device(c.device).is_cuda())
    return "needs a CUDA device: the search stops at the first allocation the device refuses, and a CPU's "
           "memory does not refuse cleanly (the system swaps, then kills the process)";
  return "";
}

}  // namespace

ScenarioInfo largest_batch_scenario() {
  ScenarioInfo s;
  s.name = kLargestBatchName;
  s.technique = "baseline at 0.9 x the largest batch that fits the device (searched once, padded to max_length), "
                "lr scaled by sqrt(batch / batch_size); evaluation keeps batch_size";
  s.technique_settings = {RowSetting::batch_size};
  s.unavailable = largest_batch_unavailable;
  s.run = run_largest_batch;
  return s;
}
FTB_REGISTER_SCENARIO(largest_batch_scenario, 2100);

}  // namespace ftb
