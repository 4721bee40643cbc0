// Precompiled header for every target that uses LibTorch: parsing torch/torch.h
// costs ~40 s per translation unit on 2 cores, so it is parsed once.
#pragma once
#include <torch/torch.h>
#include <nlohmann/json.hpp>
