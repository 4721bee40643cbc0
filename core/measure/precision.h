// The one Precision type. Inside: an enum. At the edges (core/base/choices.h):
// Lightning's names are accepted ("32", "32-true", "bf16-mixed", "16-mixed",
// and ours), and reports, tables and charts use one spelling: fp32 |
// bf16-mixed | fp16-mixed.
#pragma once

#include "core/base/choices.h"

namespace ftb {

enum class Precision { fp32, bf16_mixed, fp16_mixed };

// The report's spelling first, then Lightning's ("32", "32-true", "16-mixed",
// "16", "bf16"): parse_choice<Precision> accepts all of them.
FTB_CHOICES(Precision,
            {Precision::fp32, "fp32"},
            {Precision::bf16_mixed, "bf16-mixed"},
            {Precision::fp16_mixed, "fp16-mixed"},
            {Precision::fp32, "32"},
            {Precision::fp32, "32-true"},
            {Precision::bf16_mixed, "bf16"},
            {Precision::fp16_mixed, "16-mixed"},
            {Precision::fp16_mixed, "16"});

}  // namespace ftb
