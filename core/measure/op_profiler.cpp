#include "core/measure/op_profiler.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <set>
#include <stdexcept>

#include "core/base/files.h"
#include "core/measure/device.h"

namespace ftb {
namespace {

thread_local StepProfiler* active_profiler = nullptr;

namespace prof = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

std::set<ActivityType> activities(const torch::Device& device) {
  std::set<ActivityType> a{ActivityType::CPU};
  if (device.is_cuda()) a.insert(ActivityType::CUDA);  // kernels, copies, sets through CUPTI
  return a;
}

// Kineto's events as plain ProfileEvents. Device activities (kernels,
// copies, sets) have deviceType CUDA; host runtime calls (cudaLaunchKernel)
// are host operators inside the operator that launched them, as in
// torch.profiler's tables. Our ranges are the user-scope record functions.
std::vector<ProfileEvent> plain_events(const prof::ProfilerResult& result) {
  std::vector<ProfileEvent> out;
  for (const auto& e : result.events()) {
    if (e.isHiddenEvent()) continue;
    ProfileEvent p;
    p.name = e.name();
    p.on_device = e.deviceType() == c10::DeviceType::CUDA;
    p.thread = p.on_device ? static_cast<uint64_t>(e.deviceResourceId()) : e.startThreadId();
    p.start_ns = static_cast<int64_t>(e.startNs());
    p.end_ns = static_cast<int64_t>(e.endNs());
    p.range = !p.on_device && e.scope() == static_cast<uint8_t>(at::RecordScope::USER_SCOPE);
    out.push_back(std::move(p));
  }
  return out;
}

// This thread's run delay so far: the time it was runnable but waited for a
// CPU (the second field of /proc/thread-self/schedstat, ns); -1 where the
// kernel has no schedstat. Read at the step's edges only (two small reads a
// step, outside the step's range).
int64_t thread_run_delay_ns() {
  std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
  if (!f) return -1;
  unsigned long long on_cpu = 0, waited = 0;
  const int n = std::fscanf(f, "%llu %llu", &on_cpu, &waited);
  std::fclose(f);
  return n == 2 ? static_cast<int64_t>(waited) : -1;
}

}  // namespace

void write_gzip_file(const std::string& path, const std::string& text) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer, as gunzip and Perfetto read.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error(path + ": zlib deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error(path + ": zlib deflate failed");
  write_file_atomic(path, out);
}

StepProfiler::StepProfiler(ProfileRequest request) : request_(std::move(request)) {}

StepProfiler::~StepProfiler() {
  step_range_.reset();
  if (running_) prof::disableProfiler();  // the window did not finish: nothing to keep
}

void StepProfiler::before_step(int64_t step) {
  if (finished_ || step < request_.first_step || step >= request_.first_step + request_.steps) return;
  if (!running_) {
    const ProfilerConfig config(ProfilerState::KINETO);
    prof::prepareProfiler(config, activities(request_.device));
    prof::enableProfiler(config, activities(request_.device), {});
    running_ = true;
  }
  // Untimed pass: the device's wait here keeps the previous step's kernels
  // out of this step's range.
  synchronize(request_.device);
  wait_at_start_ns_ = thread_run_delay_ns();
  step_range_ = std::make_unique<at::RecordFunction>(at::RecordScope::USER_SCOPE);
  const std::string name = profiler_step_name(step);
  if (step_range_->isActive()) step_range_->before(std::string_view(name), c10::ArrayRef<const c10::IValue>{});
}

void StepProfiler::after_step(int64_t step) {
  if (!running_ || !step_range_) return;
  synchronize(request_.device);  // the step's kernels inside its range
  step_range_.reset();           // ends the range
  const int64_t waited = thread_run_delay_ns();
  if (waited < 0 || wait_at_start_ns_ < 0) cpu_wait_known_ = false;
  else cpu_wait_ns_ += waited - wait_at_start_ns_;
  if (step == request_.first_step + request_.steps - 1) stop();
}

void StepProfiler::stop() {
  std::unique_ptr<prof::ProfilerResult> result = prof::disableProfiler();
  running_ = false;
  finished_ = true;
  profile_ = summarize_profile(plain_events(*result), request_.device.is_cuda());
  if (cpu_wait_known_ && profile_.steps > 0) profile_.cpu_wait_s = static_cast<double>(cpu_wait_ns_) / 1e9;
  profile_.trace = request_.trace_path;
  if (request_.trace_path.empty()) return;
  const bool gz = request_.trace_path.size() > 3 &&
                  request_.trace_path.compare(request_.trace_path.size() - 3, 3, ".gz") == 0;
  if (!gz) {
    result->save(request_.trace_path);
    return;
  }
  // Kineto writes the JSON to a file; compressed beside it, then removed.
  const std::string plain = request_.trace_path + ".tmp." + std::to_string(::getpid()) + ".json";
  result->save(plain);
  const std::string text = read_text_file(plain);
  std::remove(plain.c_str());
  write_gzip_file(request_.trace_path, text);
}

ActiveStepProfiler::ActiveStepProfiler(StepProfiler* profiler) : previous_(active_profiler) {
  active_profiler = profiler;
}
ActiveStepProfiler::~ActiveStepProfiler() { active_profiler = previous_; }
StepProfiler* active_step_profiler() { return active_profiler; }

}  // namespace ftb
