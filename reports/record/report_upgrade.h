// Older report versions, read by upgrading their JSON to the current one
// (reports/record/report.schema.json's description lists what changed), so every
// report ever written stays readable and every reader handles one version.
// nlohmann/json only: the test tool that validates upgraded reports against
// the schema links this without LibTorch.
#pragma once

#include <nlohmann/json.hpp>

namespace ftb {

inline constexpr const char* kReportSchemaV1 = "ftbench.report/1";
inline constexpr const char* kReportSchemaV2 = "ftbench.report/2";
inline constexpr const char* kReportSchemaV3 = "ftbench.report/3";
inline constexpr const char* kReportSchemaV4 = "ftbench.report/4";
inline constexpr const char* kReportSchemaV5 = "ftbench.report/5";

// `report` in the current version (ftbench.report/5): returned as is when it
// already is, upgraded from ftbench.report/1, /2, /3 or /4 (marked "upgraded_from"), and an
// InputError naming the key for anything else (not an object, no schema, a
// version this ftbench does not know).
nlohmann::json upgrade_report(nlohmann::json report);

// What builds up to ftbench.report/3 defined as each row's technique settings
// and stack (frozen; the upgrade fills v1-v3 results from it):
// {"scenario": {"technique_settings": [...], "stack": [...]}}. A test holds
// it against today's registry for the rows those builds had.
nlohmann::json legacy_technique_table();

}  // namespace ftb
