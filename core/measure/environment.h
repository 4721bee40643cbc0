// The machine a run happened on, captured once per run and stored in
// report.json's "environment": without it two reports cannot be compared.
#pragma once

#include <nlohmann/json.hpp>

namespace ftb {

// Keys: host, os, distro, cpu {model, logical_cores, available_cores,
// physical_cores}, memory_bytes, gpus [{index, name, total_memory_bytes,
// capability, multiprocessors}], cuda_driver (the CUDA API version the driver
// supports), driver_version (the NVIDIA driver's, from NVML), nvml (see
// core/measure/nvml.h), libtorch {version, cuda, cudnn, nccl}, compiler,
// build_type, threads {intra_op, inter_op, parallel_info}, env_vars
// (thread/device variables that are set), git_commit, git_tree (clean |
// dirty | unknown, at build time), blas, timestamp.
// Unknown values are null, never guessed. Cheap (no GPU work), but it creates
// the CUDA context when a GPU is present.
nlohmann::json capture_environment();

}  // namespace ftb
