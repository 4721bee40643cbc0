// Vendor datasheet peaks: the dense (no 2:4 sparsity) matmul TFLOP/s of a GPU
// by precision, so MFU can be stated against a fixed reference that does not
// move from run to run (the measured peak does: see scenarios/sweep.h). Only
// GPUs whose datasheets we cite are listed; an unknown device gets none,
// never a guess.
//
// fp32 rows run with TF32 off (LibTorch's default for matmuls), so their
// peak is the datasheet's non-tensor FP32 figure, not TF32's.
#pragma once

#include <optional>
#include <string>

#include "core/measure/precision.h"

namespace ftb {

struct DatasheetPeaks {
  std::string model;               // e.g. "H200 SXM"
  std::optional<double> fp32;      // TFLOP/s, dense
  std::optional<double> bf16, fp16;
  std::string source;              // the datasheet the figures come from
};

// The entry for a CUDA device name as the driver reports it ("NVIDIA H200",
// "NVIDIA A100-SXM4-80GB", "NVIDIA H100 PCIe", ...); nullopt when unknown.
std::optional<DatasheetPeaks> datasheet_peaks(const std::string& gpu_name);

// The peak a row of precision `p` runs at (fp32 -> fp32; bf16-mixed -> bf16;
// fp16-mixed -> fp16); nullopt when the datasheet gives none.
std::optional<double> datasheet_peak(const DatasheetPeaks& d, Precision p);

}  // namespace ftb
