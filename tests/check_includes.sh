#!/usr/bin/env bash
# Fails when an include points upward. Folders are the data flow:
#   bench -> reports -> scenarios -> core/train -> core/measure -> core/model
#         -> core/text -> core/base
# and inside reports: views -> analysis -> record
# (scenarios/parallel is part of scenarios; the launcher and rank environment
# in it use core/base only). core/base, core/text, the record's vocabulary in
# core/measure and the launcher include nothing of LibTorch. Prints every
# offending line.
set -u
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root" || exit 2
bad=0
check() {  # check <folder> <regex of forbidden project includes> <why>
  local hits
  hits=$(grep -rHnE "^\s*#\s*include\s*[<\"]($2)" --include='*.h' --include='*.cpp' --include='*.in' "$1" 2>/dev/null)
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed "s|\$|   <- $3|"
    bad=1
  fi
}
check core/base    'core/text/|core/model/|core/measure/|core/train/|scenarios/|reports/|bench/|torch/|ATen/|c10/' 'core/base: no LibTorch, nothing above it'
check core/text    'core/model/|core/measure/|core/train/|scenarios/|reports/|bench/|torch/|ATen/|c10/' 'core/text may include core/base only, no LibTorch'
check core/model   'core/measure/|core/train/|scenarios/|reports/|bench/' 'core/model may include core/text and core/base only'
check core/measure 'core/train/|scenarios/|reports/|bench/' 'core/measure may include core/model, core/text and core/base only'
for f in core/measure/precision.h core/measure/precision.cpp core/measure/phases.h core/measure/phases.cpp core/measure/records.h core/measure/op_profile.h core/measure/op_profile.cpp; do
  check "$f" 'core/text/|core/model/|core/measure/(device|environment|nvml|flops|datasheet_peaks|phase_recorder|nvtx_range|build_info|op_profiler)|torch/|ATen/|c10/' 'the record vocabulary (ftb_records) has no LibTorch'
done
check core/train   'scenarios/|reports/|bench/' 'core/train may include core/measure, core/model, core/text and core/base only'
check scenarios  'reports/|bench/' 'scenarios may include core only'
check reports    'bench/' 'reports may include scenarios and core only'
check reports/record   'reports/analysis/|reports/views/' 'reports/record includes no analysis and no view'
check reports/analysis 'reports/views/' 'reports/analysis includes no view'
# reports/ links no LibTorch: of the layers below it, only the result record
# (scenarios/result.h and the torch-free core/measure headers it needs) and core/base.
hits=$(grep -rHnE '^\s*#\s*include\s*"' --include='*.h' --include='*.cpp' --include='*.in' reports 2>/dev/null |
  grep -vE '#\s*include\s*"(reports/|core/base/|scenarios/result\.h"|core/measure/(records|precision|phases|op_profile)\.h")')
hits2=$(grep -rHnE '^\s*#\s*include\s*<(torch|ATen|c10)/' --include='*.h' --include='*.cpp' reports 2>/dev/null)
if [ -n "$hits$hits2" ]; then
  printf '%s\n' "$hits" "$hits2" | grep . | sed 's|$|   <- reports/ links no LibTorch: the result record and core/base only|'
  bad=1
fi
for f in scenarios/parallel/launcher.h scenarios/parallel/launcher.cpp scenarios/parallel/rank_env.h scenarios/parallel/rank_env.cpp; do
  check "$f" 'core/text/|core/model/|core/measure/|core/train/|scenarios/[a-z_]+\.h|scenarios/parallel/(communicator|data_parallel|fabric|rank_protocol|distributed_row)|torch/|ATen/|c10/' 'the launcher target has no LibTorch'
done
# The check must be able to fail: a folder list that matched nothing is an error.
for d in core/base core/text core/model core/measure core/train scenarios/parallel reports reports/record reports/analysis reports/views bench; do
  [ -d "$d" ] || { echo "missing folder $d (layout changed? update this check)"; bad=1; }
done
[ $bad = 0 ] && echo "includes point down"
exit $bad
