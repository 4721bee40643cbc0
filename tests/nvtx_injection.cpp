#include "tests/nvtx_injection.h"

#include <mutex>

namespace ftb_test {
namespace {
std::mutex mu;
NvtxLog log_;
}  // namespace

NvtxLog nvtx_log() {
  std::lock_guard<std::mutex> lock(mu);
  return log_;
}

}  // namespace ftb_test

#ifdef FTB_WITH_NVTX
// Our definition of InitializeInjectionNvtx2_fnptr (at the end) replaces the
// header's weak one; the loader in the header reads it, so it is declared first.
#include <cstdint>
#define NVTX_STATIC_INJECTION_IMPL
extern "C" {
extern int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(uint32_t));
}
#include <nvtx3/nvToolsExt.h>

namespace ftb_test {
namespace {

int NVTX_API push_a(const char* message) {
  std::lock_guard<std::mutex> lock(mu);
  log_.pushed.emplace_back(message ? message : "");
  return static_cast<int>(log_.pushed.size()) - log_.popped - 1;  // the range's depth
}

int NVTX_API pop() {
  std::lock_guard<std::mutex> lock(mu);
  ++log_.popped;
  return static_cast<int>(log_.pushed.size()) - log_.popped;
}

// Called once by the NVTX3 loader: hooks RangePushA and RangePop in the core
// module's table (the rest stay no-ops).
int NVTX_API attach(NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(&push_a);
  *table[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&pop);
  std::lock_guard<std::mutex> lock(mu);
  log_.attached = true;
  return 1;
}

}  // namespace
}  // namespace ftb_test

extern "C" {
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = &ftb_test::attach;
}
#endif
