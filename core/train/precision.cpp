#include "core/train/precision.h"

#include "core/text/errors.h"

namespace ftb {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::bf16_mixed: return "bf16-mixed";
    case Precision::fp16_mixed: return "fp16-mixed";
  }
  return "fp32";
}

Precision parse_precision(const std::string& t, const std::string& key) {
  if (t == "32" || t == "32-true" || t == "fp32") return Precision::fp32;
  if (t == "bf16-mixed" || t == "bf16") return Precision::bf16_mixed;
  if (t == "16-mixed" || t == "16" || t == "fp16-mixed") return Precision::fp16_mixed;
  input_error(key, "unknown precision \"" + t + "\" (32, bf16-mixed or 16-mixed)");
}

std::optional<Precision> parse_precision_setting(const std::string& text, const std::string& key) {
  if (text == "auto") return std::nullopt;
  return parse_precision(text, key);
}

std::string setting_to_string(const std::optional<Precision>& p) { return p ? to_string(*p) : "auto"; }

}  // namespace ftb
