// The training choices a config names, each an enum with its one table of
// names (core/base/choices.h). No LibTorch: the config (run_config.h) and
// its fuzz target read them without it.
#pragma once

#include "core/base/choices.h"

namespace ftb {

// Adam's kernels (core/train/optimizer.h). The config's `adam` is
// std::optional<AdamKernel>: auto = nullopt, what torch.optim.Adam picks.
enum class AdamKernel { loop, foreach, fused };
FTB_CHOICES(AdamKernel,
            {AdamKernel::loop, "loop"},
            {AdamKernel::foreach, "foreach"},
            {AdamKernel::fused, "fused"});

// How a batch is padded (core/train/batching.h).
enum class Padding { max_length, longest };
FTB_CHOICES(Padding, {Padding::max_length, "max_length"}, {Padding::longest, "longest"});

// With a model folder: its weights (from_pretrained) or its architecture with
// fresh weights (from_config), the control run for what pre-training buys.
enum class ModelInit { pretrained, random };
FTB_CHOICES(ModelInit, {ModelInit::pretrained, "pretrained"}, {ModelInit::random, "random"});

// A data-parallel strategy, by ftbench's row names; Lightning/DeepSpeed's and
// FSDP's names are aliases (deepspeed_stage_1/2/3 and their _offload; fsdp
// and FULL_SHARD = zero3, SHARD_GRAD_OP = zero2, NO_SHARD = ddp).
enum class Strategy { ddp, sharded, zero2, zero2_offload, zero3, zero3_offload };
FTB_CHOICES(Strategy,
            {Strategy::ddp, "ddp"},
            {Strategy::sharded, "sharded"},
            {Strategy::zero2, "zero2"},
            {Strategy::zero2_offload, "zero2_offload"},
            {Strategy::zero3, "zero3"},
            {Strategy::zero3_offload, "zero3_offload"},
            {Strategy::sharded, "deepspeed_stage_1"},
            {Strategy::zero2, "deepspeed_stage_2"},
            {Strategy::zero2_offload, "deepspeed_stage_2_offload"},
            {Strategy::zero3, "deepspeed_stage_3"},
            {Strategy::zero3_offload, "deepspeed_stage_3_offload"},
            {Strategy::zero3, "fsdp"},
            {Strategy::zero3, "FULL_SHARD"},
            {Strategy::ddp, "NO_SHARD"},
            {Strategy::zero2, "SHARD_GRAD_OP"});

}  // namespace ftb
