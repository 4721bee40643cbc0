// largest_batch: baseline at the largest batch that fits the device, with
// Adam's learning rate scaled by the square-root rule; the table compares its
// time and accuracy with baseline's batch. The search trains a throwaway
// model of the workload for two steps per candidate batch on sequences
// padded to max_length (the longest any batch can be), in the row's
// precision, and treats c10::OutOfMemoryError as "does not fit". Its time is
// the row's setup, reported in extra.search_s and never in the row's wall
// time; the batches tried are in extra.search. CUDA only: a CPU's memory
// does not refuse an allocation cleanly (the system swaps, then kills), so a
// search there would take the machine down rather than find a limit.
#include "scenarios/largest_batch.h"

#include <cmath>

#include "core/train/device.h"
#include "core/train/optimizer.h"
#include "core/train/records.h"
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

namespace {

constexpr const char* kName = "largest_batch";
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

ScenarioResult run_largest_batch(const Workload& w, const RunConfig& config, const ScenarioContext& ctx) {
  const auto device = resolve_device(config.device);
  const auto t0 = Clock::now();
  std::vector<std::pair<int64_t, bool>> tried;
  const int64_t cap = std::min<int64_t>(kBatchCap, static_cast<int64_t>(w.train.size()));
  const int64_t b = largest_fitting_batch(config.batch_size, cap,
                                          [&](int64_t n) { return batch_fits(w, config, device, n); }, &tried);
  release_cached_memory(device);
  const double search_s = seconds_since(t0);
  if (b == 0) throw std::runtime_error(does_not_fit_reason(config, "not even the configured batch fits"));
  RunConfig c = config;
  c.batch_size = b;
  c.eval_batch_size = config.eval_batch_size > 0 ? config.eval_batch_size : config.batch_size;
  c.lr = sqrt_scaled_lr(config.lr, config.batch_size, b);
  auto r = run_plain_loop(w, c, ctx, kName);
  nlohmann::json search = nlohmann::json::array();
  for (const auto& [n, ok] : tried) search.push_back({{"batch_size", n}, {"fits", ok}});
  r.extra["batch_size"] = b;
  r.extra["lr"] = c.lr;
  r.extra["lr_rule"] = "sqrt: lr x sqrt(batch / " + std::to_string(config.batch_size) + ") (Adam; Malladi et al. 2022)";
  r.extra["search"] = search;
  r.extra["search_s"] = search_s;
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
  s.name = kName;
  s.technique = "baseline at the largest batch that fits the device (searched, padded to max_length), "
                "lr scaled by sqrt(batch / batch_size); evaluation keeps batch_size";
  s.technique_settings = {RowSetting::batch_size};
  s.unavailable = largest_batch_unavailable;
  s.run = run_largest_batch;
  return s;
}

}  // namespace ftb
