// The machine a run happened on, captured once per run and stored in
// report.json's "environment": without it two reports cannot be compared.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ftb {

// Keys: host, os, kernel (uname release), distro, cpu {model (the "model
// name"), vendor, family, model_number, stepping, microcode, isa {flag: bool}
// (the instruction sets that decide a kernel: AVX2, AVX-512F, AVX-512 BF16 /
// VNNI / FP16, AMX tile / BF16 / INT8; ARM's ASIMD, SVE, SVE2, BF16),
// logical_cores, available_cores, physical_cores, frequency_governor,
// frequency_driver ("not exposed" where cpufreq is absent)}, memory_bytes,
// gpus [{index, name, total_memory_bytes, capability, multiprocessors}],
// cuda_driver (the CUDA API version the driver supports), driver_version
// (the NVIDIA driver's, from NVML), nvml (see core/measure/nvml.h: clocks,
// power limit), libtorch {version, cuda, cudnn, nccl, cpu_capability (ATen's
// dispatch ISA), mkl, onednn}, compiler, build_type, threads {intra_op,
// inter_op, parallel_info}, env_vars (the watched thread / kernel / allocator
// / device variables that are set), env_vars_watched (the names looked at),
// git_commit, git_tree (clean | dirty | unknown, at build time), blas,
// timestamp.
// Unknown values are null, never guessed. Cheap (no GPU work), but it creates
// the CUDA context when a GPU is present.
nlohmann::json capture_environment();

// /proc/cpuinfo's text as environment.cpu's identity: model, vendor, family,
// model_number, stepping, microcode (the first processor's), isa and
// physical_cores (distinct physical id / core id pairs; null without core
// ids). Absent lines are null (ARM has no "model name"; its implementer,
// architecture, part and revision stand for vendor, family, model, stepping).
nlohmann::json cpu_identity(const std::string& cpuinfo);

}  // namespace ftb
