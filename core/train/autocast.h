// Autocast from C++: the thread-local switches behind Python's torch.autocast,
// and an RAII guard with the same semantics. Header-only (a few calls).
//
// The names that take the device type (at::autocast::set_autocast_enabled(kCUDA,
// on)); the older per-device names (set_enabled, set_cpu_enabled, ...) are
// deprecated wrappers that warn at compile time and at run time.
//
// Autocast state is per thread: a thread we start does not inherit it.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "core/model/compat.h"
#include "core/measure/precision.h"

namespace ftb::compat {

inline bool autocast_enabled(c10::DeviceType dev) { return at::autocast::is_autocast_enabled(dev); }
inline void set_autocast_enabled(c10::DeviceType dev, bool on) { at::autocast::set_autocast_enabled(dev, on); }
inline at::ScalarType autocast_dtype(c10::DeviceType dev) { return at::autocast::get_autocast_dtype(dev); }
inline void set_autocast_dtype(c10::DeviceType dev, at::ScalarType t) { at::autocast::set_autocast_dtype(dev, t); }


}  // namespace ftb::compat

namespace ftb {

// == `with torch.autocast(device_type, dtype, enabled, cache_enabled):`
// Ops listed by autocast (matmul, linear, sdpa, ...) run in `dtype` inside the
// scope; the previous state (enabled, dtype, cache flag) is restored on exit,
// and the cast-weight cache is cleared when the outermost guard closes.
// Run backward() outside the scope, as in Python; grads of fp32 params are fp32.
// Under CUDA-graph capture pass cache_enabled=false (cached casts would be
// graph-private tensors that outlive the capture).
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, at::ScalarType dtype, bool enabled = true,
                bool cache_enabled = true)
      : device_(device),
        prev_enabled_(compat::autocast_enabled(device)),
        prev_dtype_(compat::autocast_dtype(device)),
        prev_cache_(at::autocast::is_autocast_cache_enabled()) {
    // dtype first: it is the call that can throw (1.13, CPU + fp16), and
    // enabling first would leave autocast on for the rest of the thread.
    compat::set_autocast_dtype(device_, dtype);
    compat::set_autocast_enabled(device_, enabled);
    at::autocast::increment_nesting();
    at::autocast::set_autocast_cache_enabled(cache_enabled);
  }
  ~AutocastGuard() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    compat::set_autocast_enabled(device_, prev_enabled_);
    compat::set_autocast_dtype(device_, prev_dtype_);
    at::autocast::set_autocast_cache_enabled(prev_cache_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool prev_enabled_;
  at::ScalarType prev_dtype_;
  bool prev_cache_;
};

// The dtype autocast computes in for a precision: bf16-mixed -> bf16,
// fp16-mixed -> fp16, fp32 -> fp32 (no autocast).
inline at::ScalarType autocast_dtype(Precision precision) {
  if (precision == Precision::bf16_mixed) return at::kBFloat16;
  if (precision == Precision::fp16_mixed) return at::kHalf;
  return at::kFloat;
}

// Autocast for a precision while alive (autocast_dtype), fp32 -> nothing.
// cache_enabled as AutocastGuard's (false under CUDA-graph capture).
class PrecisionAutocast {
 public:
  PrecisionAutocast(c10::DeviceType device, Precision precision, bool cache_enabled = true) {
    if (precision != Precision::fp32) guard_.emplace(device, autocast_dtype(precision), true, cache_enabled);
  }

 private:
  std::optional<AutocastGuard> guard_;
};

}  // namespace ftb
