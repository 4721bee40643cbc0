// A CPU allocator for tests that counts the bytes it has handed out and not
// yet had back (live) and the most at once (peak): an instrument independent
// of the strategies' own tracking (dist::HeldMemory reads their tensors back;
// this sees every CPU tensor LibTorch allocates: activations, autocast's
// casts, autograd's buffers). It wraps the allocator in place when installed
// (c10::SetCPUAllocator) and puts that one back when the scope ends.
// Process-wide: with ranks as threads of one process it counts every rank's
// tensors, and anything else the process allocates meanwhile.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace ftb_test {

class CountingCpuAllocator final : public c10::Allocator {
 public:
  // Never destroyed (a tensor allocated here may outlive the test's scope:
  // its deleter comes back to this object).
  static CountingCpuAllocator& instance() {
    static auto* a = new CountingCpuAllocator();
    return *a;
  }

  // A simple data pointer (data == context: LibTorch's raw_allocate needs
  // one), whose size and the wrapped allocator's deleter are kept by address.
  c10::DataPtr allocate(size_t n) override {
    auto inner = base_->allocate(n);
    void* data = inner.get();
    const c10::Device device = inner.device();
    if (data == nullptr) return inner;
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    if (inner.get_context() != data || !inner.release_context())
      throw std::runtime_error("CountingCpuAllocator: the wrapped allocator's pointers are not simple");
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_[data] = {static_cast<int64_t>(n), deleter};
    }
    const int64_t now = live_.fetch_add(static_cast<int64_t>(n)) + static_cast<int64_t>(n);
    int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    return {data, data, &release, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { base_->copy_data(dest, src, count); }

  int64_t live() const { return live_.load(); }
  int64_t peak() const { return peak_.load(); }
  void reset_peak() { peak_.store(live_.load()); }

  // Installs the counter for its lifetime (the allocator in place before
  // is wrapped, and restored after).
  class Scope {
   public:
    Scope() : previous_(c10::GetCPUAllocator()) {
      auto& a = instance();
      a.base_ = previous_;
      c10::SetCPUAllocator(&a, kPriority);
      a.reset_peak();
    }
    ~Scope() { c10::SetCPUAllocator(previous_, kPriority); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    // Whether LibTorch's CPU tensors now come from the counter.
    static bool active() { return c10::GetCPUAllocator() == &instance(); }

   private:
    c10::Allocator* previous_;
  };

 private:
  static constexpr uint8_t kPriority = 0;  // the default CPU allocator's: equal may replace it
  struct Held {
    int64_t bytes;
    c10::DeleterFnPtr deleter;
  };
  static void release(void* data) {
    if (data == nullptr) return;
    auto& a = instance();
    Held h{};
    {
      std::lock_guard<std::mutex> lock(a.mu_);
      const auto it = a.held_.find(data);
      if (it == a.held_.end()) return;  // not ours (cannot happen: only our DataPtrs name this deleter)
      h = it->second;
      a.held_.erase(it);
    }
    a.live_.fetch_sub(h.bytes);
    h.deleter(data);  // the memory back through the wrapped allocator
  }
  CountingCpuAllocator() = default;
  c10::Allocator* base_ = c10::GetDefaultCPUAllocator();
  std::atomic<int64_t> live_{0}, peak_{0};
  std::mutex mu_;
  std::unordered_map<void*, Held> held_;
};

}  // namespace ftb_test
