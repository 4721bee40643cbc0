// The attention DistilBertForSequenceClassification runs (core/model/distilbert.cpp),
// in HF's config._attn_implementation names: at::scaled_dot_product_attention
// with a boolean key mask (compat::sdpa). Reports state it
// (environment.attn_implementation), beside the Python peer's.
#pragma once

namespace ftb {

inline constexpr const char* kAttnImplementation = "sdpa";

}  // namespace ftb
