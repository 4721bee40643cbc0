#include "bench/progress.h"

#include "core/base/text_format.h"
#include "core/measure/device.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ftb {
namespace {

std::string clock_text(double s) {
  if (s < 0 || s > 1e7) return "--:--";
  const int t = static_cast<int>(s + 0.5);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

}  // namespace

std::string suite_eta_line(const std::vector<ScenarioResult>& results, int rows, int repeats, double elapsed_s) {
  int done = 0, left_units = 0;
  double measured = 0, left = 0;
  int measured_n = 0;
  for (const auto& r : results) {
    const int n = static_cast<int>(r.repeats.size());
    if (r.status != Status::ok || n == 0) {  // skipped or failed: nothing more of it will run
      done += repeats;
      continue;
    }
    double sum = 0;
    for (const auto& x : r.repeats) sum += x.wall_time_s;
    measured += sum;
    measured_n += n;
    done += std::min(n, repeats);
    left += std::max(0, repeats - n) * sum / n;
  }
  const int unstarted = std::max(0, rows - static_cast<int>(results.size())) * repeats;
  left_units = rows * repeats - done;
  if (measured_n > 0) left += unstarted * measured / measured_n;
  const double overhead = measured > 0 ? std::max(1.0, elapsed_s / measured) : 1.0;
  std::string line = "[suite] " + std::to_string(done) + " of " + std::to_string(rows * repeats) +
                     " row repeats done in " + clock_text(elapsed_s);
  if (left_units <= 0) return line + "\n";
  return line + (measured_n > 0 ? ", about " + clock_text(left * overhead) + " left\n" : "\n");
}

ProgressPrinter::ProgressPrinter() : tty_(::isatty(STDERR_FILENO) == 1) {}

void ProgressPrinter::on_train_start(const LoopState& s) {
  start_ = std::chrono::steady_clock::now();
  start_step_ = s.step;
  std::fprintf(stderr, "[%s] %lld epochs x %lld steps\n", s.scenario.c_str(),
               static_cast<long long>(s.epochs), static_cast<long long>(s.steps_per_epoch));
}

void ProgressPrinter::on_epoch_start(const LoopState&) { ema_loss_ = 0; }

void ProgressPrinter::on_batch_end(const LoopState& s, const StepRecord& r) {
  // On a device the loss is read once per epoch (NaN here, so the bar shows
  // "-"; the epoch's line gives its mean): no wait on the device per step.
  if (std::isfinite(r.loss)) ema_loss_ = ema_loss_ == 0 ? r.loss : 0.95 * ema_loss_ + 0.05 * r.loss;
  char loss[32] = "-";
  if (ema_loss_ != 0) std::snprintf(loss, sizeof loss, "%.4f", ema_loss_);
  const auto now = std::chrono::steady_clock::now();
  const int64_t in_epoch = s.step - (s.epoch - 1) * s.steps_per_epoch;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? (s.step - start_step_) / elapsed : 0;
  const double eta = rate > 0 ? (s.total_steps - s.step) / rate : -1;
  if (tty_) {
    if (now - last_draw_ < std::chrono::milliseconds(100) && in_epoch != s.steps_per_epoch) return;
    last_draw_ = now;
    const int width = 30;
    const int filled = s.steps_per_epoch ? static_cast<int>(width * in_epoch / s.steps_per_epoch) : width;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r[%s] epoch %lld/%lld [%s] %lld/%lld  %.2f it/s  ETA %s  loss %s  ",
                 s.scenario.c_str(), static_cast<long long>(s.epoch), static_cast<long long>(s.epochs),
                 bar.c_str(), static_cast<long long>(in_epoch), static_cast<long long>(s.steps_per_epoch), rate,
                 clock_text(eta).c_str(), loss);
    std::fflush(stderr);
  } else {
    const int64_t every = std::max<int64_t>(1, s.steps_per_epoch / 10);
    if (in_epoch % every != 0 && in_epoch != s.steps_per_epoch) return;
    std::fprintf(stderr, "[%s] epoch %lld/%lld step %lld/%lld  %.2f it/s  ETA %s  loss %s\n",
                 s.scenario.c_str(), static_cast<long long>(s.epoch), static_cast<long long>(s.epochs),
                 static_cast<long long>(in_epoch), static_cast<long long>(s.steps_per_epoch), rate,
                 clock_text(eta).c_str(), loss);
  }
}

void ProgressPrinter::on_epoch_end(const LoopState& s, const EpochRecord& e) {
  if (tty_) std::fprintf(stderr, "\n");
  std::fprintf(stderr, "[%s] epoch %lld: train loss %.4f acc %.2f%% | val loss %.4f acc %.2f%% | %.1f s\n",
               s.scenario.c_str(), static_cast<long long>(e.epoch), e.train_loss, 100 * e.train_acc, e.val_loss,
               100 * e.val_acc, e.time_s);
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::fputs(format_table(rows, {}, TableStyle::plain).c_str(), stdout);
}

void print_config(const Sweep& sweep, const std::string& out_dir) {
  const RunConfig& config = sweep.config();
  std::vector<std::vector<std::string>> rows{{"key", "value", "meaning"}};
  for (auto& r : config_rows(config)) rows.push_back(r);
  rows.push_back({"out", out_dir, "report folder"});
  rows.push_back({"(resolved device)", resolve_device(config.device).str(), ""});
  rows.push_back({"(intra-op threads)", std::to_string(sweep.threads()), "set explicitly; recorded in the report"});
  if (sweep.env().launched)
    rows.push_back({"(rank)", std::to_string(sweep.env().rank) + " of " + std::to_string(sweep.env().world_size),
                    std::string("started by ") + to_string(sweep.env().launcher)});
  print_table(rows);
  std::fflush(stdout);
  std::fprintf(stderr, "preparing data ...\n");
}

}  // namespace ftb
