#include "core/measure/datasheet_peaks.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace ftb {
namespace {

struct Entry {
  const char* pattern;  // ECMAScript regex, matched against the upper-cased device name
  DatasheetPeaks peaks;
};

// Most specific first (GH200 before H200, GB200 before B200, H100 NVL/PCIe
// before H100 SXM). Figures: NVIDIA's product datasheets, dense Tensor Core
// figures (the datasheets print the sparse ones with an asterisk: half these).
const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {R"(\bGH200\b)", {"GH200 (H100-class GPU)", 67, 989.4, 989.4, "NVIDIA GH200 Grace Hopper Superchip datasheet"}},
      {R"(\bH200\b.*\bNVL\b)", {"H200 NVL", 60, 835, 835, "NVIDIA H200 Tensor Core GPU datasheet (H200 NVL)"}},
      {R"(\bH200\b)", {"H200 SXM", 67, 989.4, 989.4, "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)"}},
      {R"(\bH100\b.*\bNVL\b)", {"H100 NVL", 60, 835, 835, "NVIDIA H100 Tensor Core GPU datasheet (H100 NVL)"}},
      {R"(\bH100\b.*\bPCIE\b)", {"H100 PCIe", 51, 756, 756, "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe)"}},
      {R"(\bH100\b)", {"H100 SXM", 67, 989.4, 989.4, "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM)"}},
      {R"(\bA100\b)", {"A100", 19.5, 312, 312, "NVIDIA A100 Tensor Core GPU datasheet (SXM and PCIe alike)"}},
      {R"(\bL40S\b)", {"L40S", 91.6, 362.05, 362.05, "NVIDIA L40S datasheet"}},
      {R"(\bL4\b)", {"L4", 30.3, 121, 121, "NVIDIA L4 Tensor Core GPU datasheet"}},
      // Blackwell: published FP32 figures disagree (75, 80, 90 TFLOP/s), so
      // none is listed; the Tensor Core figures agree.
      {R"(\bGB200\b)", {"GB200 (B200 at 1,200 W)", std::nullopt, 2500, 2500, "NVIDIA GB200 NVL72 datasheet, per GPU"}},
      {R"(\bB200\b)", {"B200 (HGX, 1,000 W)", std::nullopt, 2250, 2250, "NVIDIA HGX B200 datasheet, per GPU"}},
  };
  return t;
}

}  // namespace

std::optional<DatasheetPeaks> datasheet_peaks(const std::string& gpu_name) {
  std::string name = gpu_name;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const auto& e : table())
    if (std::regex_search(name, std::regex(e.pattern))) return e.peaks;
  return std::nullopt;
}

std::optional<double> datasheet_peak(const DatasheetPeaks& d, Precision p) {
  switch (p) {
    case Precision::fp32: return d.fp32;
    case Precision::bf16_mixed: return d.bf16;
    case Precision::fp16_mixed: return d.fp16;
  }
  return std::nullopt;
}

}  // namespace ftb
