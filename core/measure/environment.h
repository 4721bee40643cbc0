// The machine a run happened on, captured once per run and stored in
// report.json's "environment": without it two reports cannot be compared.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>

namespace ftb {

// Keys: host, os, kernel (uname release), distro, cpu {model (the "model
// name"), vendor, family, model_number, stepping, microcode, isa {flag: bool}
// (the instruction sets that decide a kernel: AVX2, AVX-512F, AVX-512 BF16 /
// VNNI / FP16, AMX tile / BF16 / INT8; ARM's ASIMD, SVE, SVE2, BF16),
// logical_cores, available_cores, physical_cores, frequency_governor,
// frequency_driver ("not exposed" where cpufreq is absent)}, memory_bytes,
// gpus [{index, name, uuid, nvml_index, total_memory_bytes, capability,
// multiprocessors}] (the GPUs CUDA sees; nvml_index: the same GPU in nvml's
// list, by UUID, null when NVML has none),
// cuda_driver (the CUDA API version the driver supports), driver_version
// (the NVIDIA driver's, from NVML), nvml (see core/measure/nvml.h: clocks,
// power limit), libtorch {version, cuda, cudnn, nccl, cpu_capability (ATen's
// dispatch ISA), mkl, onednn, tf32 {cublas_matmul, cudnn,
// float32_matmul_precision}}, compiler, build_type, built_with {cuda,
// nccl_process_group, nvtx_ranges}, threads {intra_op,
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

// A CUDA device UUID's 16 bytes as NVML and nvidia-smi write them:
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string gpu_uuid_text(const std::array<unsigned char, 16>& bytes);
// Sets each CUDA-visible GPU's nvml_index: the entry of nvml_facts()'s "gpus"
// with its UUID (under CUDA_VISIBLE_DEVICES or MIG, CUDA's index i is not
// NVML's i), null where none matches.
void map_visible_gpus(nlohmann::json& cuda_gpus, const nlohmann::json& nvml);

}  // namespace ftb
