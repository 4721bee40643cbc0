#include "core/measure/nvml.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace ftb {
namespace {

using nlohmann::json;

// The few NVML entry points we call, declared from NVML's stable C ABI
// (nvml.h, API version 11+). Return value 0 is NVML_SUCCESS.
using Device = struct NvmlDevice*;
struct Memory {
  unsigned long long total, free, used;
};
enum ClockType { kGraphics = 0, kSm = 1, kMem = 2 };
constexpr unsigned kNvLinkMaxLinks = 18;
constexpr unsigned kStringSize = 96;

struct Api {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*cuda_driver_version)(int*) = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*by_index)(unsigned, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*uuid)(Device, char*, unsigned) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*ecc)(Device, int*, int*) = nullptr;
  int (*mig)(Device, unsigned*, unsigned*) = nullptr;
  int (*persistence)(Device, int*) = nullptr;
  int (*topology)(Device, Device, int*) = nullptr;
  int (*nvlink_state)(Device, unsigned, int*) = nullptr;
  int (*serial)(Device, char*, unsigned) = nullptr;
  int (*vbios)(Device, char*, unsigned) = nullptr;
};

template <class F>
void bind(void* lib, F& f, const char* symbol) {
  f = reinterpret_cast<F>(::dlsym(lib, symbol));
}

json str(int (*f)(Device, char*, unsigned), Device d) {
  char buf[kStringSize] = {};
  if (f && f(d, buf, sizeof buf) == 0) return std::string(buf);
  return nullptr;
}

json clock_mhz(int (*f)(Device, int, unsigned*), Device d, int type) {
  unsigned v = 0;
  if (f && f(d, type, &v) == 0) return v;
  return nullptr;
}

json enabled(int v) { return v != 0; }

// nvmlGpuTopologyLevel_t: what connects two GPUs when NVLink does not.
const char* topology_name(int level) {
  switch (level) {
    case 0: return "same board";         // NVML_TOPOLOGY_INTERNAL
    case 10: return "PCIe switch (PIX)";  // SINGLE
    case 20: return "PCIe switches (PXB)";  // MULTIPLE
    case 30: return "PCIe host bridge (PHB)";  // HOSTBRIDGE
    case 40: return "NUMA node (NODE)";  // NODE
    case 50: return "across sockets (SYS)";  // SYSTEM
  }
  return "unknown";
}

json gpu_facts(const Api& api, unsigned index, Device d) {
  json g;
  g["index"] = index;
  g["name"] = str(api.name, d);
  g["uuid"] = str(api.uuid, d);
  g["serial"] = str(api.serial, d);
  g["vbios"] = str(api.vbios, d);
  Memory m{};
  g["memory_total_bytes"] = api.memory && api.memory(d, &m) == 0 ? json(m.total) : json(nullptr);
  g["clocks_max_mhz"] = {{"sm", clock_mhz(api.max_clock, d, kSm)}, {"memory", clock_mhz(api.max_clock, d, kMem)},
                         {"graphics", clock_mhz(api.max_clock, d, kGraphics)}};
  g["clocks_now_mhz"] = {{"sm", clock_mhz(api.clock, d, kSm)}, {"memory", clock_mhz(api.clock, d, kMem)}};
  unsigned mw = 0;
  g["power_limit_w"] = api.power_limit && api.power_limit(d, &mw) == 0 ? json(mw / 1000.0) : json(nullptr);
  int ecc_now = 0, ecc_pending = 0;
  g["ecc"] = api.ecc && api.ecc(d, &ecc_now, &ecc_pending) == 0 ? enabled(ecc_now) : json(nullptr);
  unsigned mig_now = 0, mig_pending = 0;
  g["mig"] = api.mig && api.mig(d, &mig_now, &mig_pending) == 0 ? enabled(static_cast<int>(mig_now)) : json(nullptr);
  int persistence = 0;
  g["persistence_mode"] = api.persistence && api.persistence(d, &persistence) == 0 ? enabled(persistence) : json(nullptr);
  int active_links = 0;
  if (api.nvlink_state)
    for (unsigned link = 0; link < kNvLinkMaxLinks; ++link) {
      int state = 0;
      if (api.nvlink_state(d, link, &state) == 0 && state != 0) ++active_links;
    }
  g["nvlinks_active"] = api.nvlink_state ? json(active_links) : json(nullptr);
  return g;
}

// Every entry point looked up; one that is missing stays null.
void bind_all(Api& api) {
  bind(api.lib, api.init, "nvmlInit_v2");
  bind(api.lib, api.shutdown, "nvmlShutdown");
  bind(api.lib, api.driver_version, "nvmlSystemGetDriverVersion");
  bind(api.lib, api.cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2");
  bind(api.lib, api.count, "nvmlDeviceGetCount_v2");
  bind(api.lib, api.by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(api.lib, api.name, "nvmlDeviceGetName");
  bind(api.lib, api.uuid, "nvmlDeviceGetUUID");
  bind(api.lib, api.memory, "nvmlDeviceGetMemoryInfo");
  bind(api.lib, api.max_clock, "nvmlDeviceGetMaxClockInfo");
  bind(api.lib, api.clock, "nvmlDeviceGetClockInfo");
  bind(api.lib, api.power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(api.lib, api.ecc, "nvmlDeviceGetEccMode");
  bind(api.lib, api.mig, "nvmlDeviceGetMigMode");
  bind(api.lib, api.persistence, "nvmlDeviceGetPersistenceMode");
  bind(api.lib, api.topology, "nvmlDeviceGetTopologyCommonAncestor");
  bind(api.lib, api.nvlink_state, "nvmlDeviceGetNvLinkState");
  bind(api.lib, api.serial, "nvmlDeviceGetSerial");
  bind(api.lib, api.vbios, "nvmlDeviceGetVbiosVersion");
}

// What connects each pair of GPUs, pairs in index order.
json topology_facts(const Api& api, const std::vector<Device>& devices) {
  json topology = json::array();
  if (api.topology)
    for (size_t a = 0; a < devices.size(); ++a)
      for (size_t b = a + 1; b < devices.size(); ++b) {
        int level = 0;
        if (api.topology(devices[a], devices[b], &level) == 0)
          topology.push_back({{"a", a}, {"b", b}, {"pcie_common_ancestor", topology_name(level)}});
      }
  return topology;
}

// The facts of an initialised NVML: driver, GPUs and their topology.
json system_facts(const Api& api) {
  json out;
  out["available"] = true;
  char version[kStringSize] = {};
  out["driver_version"] = api.driver_version && api.driver_version(version, sizeof version) == 0
                              ? json(std::string(version))
                              : json(nullptr);
  int cuda = 0;
  out["cuda_driver_version"] = api.cuda_driver_version && api.cuda_driver_version(&cuda) == 0
                                   ? json(std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10))
                                   : json(nullptr);
  unsigned n = 0;
  std::vector<Device> devices;
  json gpus = json::array();
  if (api.count(&n) == 0)
    for (unsigned i = 0; i < n; ++i) {
      Device d = nullptr;
      if (api.by_index(i, &d) != 0) continue;
      devices.push_back(d);
      gpus.push_back(gpu_facts(api, i, d));
    }
  out["gpus"] = std::move(gpus);
  out["topology"] = topology_facts(api, devices);
  return out;
}

}  // namespace

json nvml_facts() {
  const char* override_path = std::getenv("FTB_NVML_LIBRARY");
  const std::string path = override_path ? override_path : "libnvidia-ml.so.1";
  Api api;
  api.lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.lib) return {{"available", false}, {"reason", "cannot load " + path + " (no NVIDIA driver?)"}};
  bind_all(api);
  json out;
  if (!api.init || !api.count || !api.by_index) {
    out = {{"available", false}, {"reason", path + " lacks nvmlInit_v2/nvmlDeviceGetCount_v2"}};
  } else if (const int rc = api.init(); rc != 0) {
    out = {{"available", false}, {"reason", "nvmlInit_v2 returned " + std::to_string(rc)}};
  } else {
    out = system_facts(api);
    if (api.shutdown) api.shutdown();
  }
  ::dlclose(api.lib);
  return out;
}

}  // namespace ftb
