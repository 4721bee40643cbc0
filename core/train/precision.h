// The one Precision type. Inside: an enum. At the edges: Lightning's names
// are accepted ("32", "32-true", "bf16-mixed", "16-mixed", and ours), and
// reports, tables and charts use one spelling: fp32 | bf16-mixed | fp16-mixed.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace ftb {

enum class Precision { fp32, bf16_mixed, fp16_mixed };

NLOHMANN_JSON_SERIALIZE_ENUM(Precision, {
  {Precision::fp32, "fp32"},
  {Precision::bf16_mixed, "bf16-mixed"},
  {Precision::fp16_mixed, "fp16-mixed"},
})

// The report's spelling.
std::string to_string(Precision p);
// Accepts the report's spelling and Lightning's ("32", "32-true", "16-mixed",
// "bf16-mixed", "16", "bf16"); InputError naming `key` otherwise.
Precision parse_precision(const std::string& text, const std::string& key);
// A config setting: "auto" = nullopt, else parse_precision.
std::optional<Precision> parse_precision_setting(const std::string& text, const std::string& key);
std::string setting_to_string(const std::optional<Precision>& p);  // "auto" for nullopt
// What the CLI help lists.
inline constexpr const char* kPrecisionChoices = "auto | 32 (fp32) | bf16-mixed | 16-mixed (fp16-mixed)";

}  // namespace ftb
