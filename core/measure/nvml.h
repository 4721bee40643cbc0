// GPU facts from NVML (the library behind nvidia-smi), loaded at run time
// with dlopen so that a machine without an NVIDIA driver needs nothing and a
// build needs no NVML headers: driver version, and per GPU its name, UUID,
// memory, clocks, power limit, ECC and MIG mode, persistence mode, active
// NVLinks, and the PCIe level connecting each pair of GPUs.
#pragma once

#include <nlohmann/json.hpp>

namespace ftb {

// {"available": true, "driver_version", "cuda_driver_version", "gpus": [...],
//  "topology": [{"a", "b", "pcie_common_ancestor"}]} or {"available": false,
// "reason": "..."}. Unknown values are null. The library is
// libnvidia-ml.so.1, or the file named by FTB_NVML_LIBRARY (tests).
nlohmann::json nvml_facts();

}  // namespace ftb
