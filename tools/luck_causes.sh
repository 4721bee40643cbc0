#!/usr/bin/env bash
# Which process-level causes move a whole process on this machine (issue
# 42's fifth part): A/A sets of one configuration, each process its own run,
# with the default and with one cause removed, interleaved (default,
# no-ASLR, THP always, default, ...) so the machine's drift falls on every
# set alike; then `ftbench calibrate --reports` over each set prints its
# run-to-run noise, and causes.md sets them side by side.
#   tools/luck_causes.sh OUT [FTBENCH] [RUNS]     (root for the THP setting)
# FTB_SETS: the sets to run, in their interleaved order (default
# "default aslr-off thp-always"); the first is the one the others are tested
# against (causes.md: each set's sd over the first's, and the two-sided
# p-value of the F test that their variances are equal).
# Sets: default (ASLR on, THP as the machine has it); aslr-off (setarch -R:
# the same addresses every process); thp-always (transparent huge pages for
# every mapping, not only madvised ones; restored after); malloc-thp (THP as
# the machine has it, and glibc's malloc asked to madvise its heap and its
# mmapped blocks for huge pages: GLIBC_TUNABLES glibc.malloc.hugetlb=1, one
# process's own THP, no root needed). Each run:
# --preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1.
set -euo pipefail
out=${1:?usage: tools/luck_causes.sh OUT [FTBENCH] [RUNS]}
ftbench=${2:-$(dirname "$0")/../build/ftbench}
runs=${3:-8}
read -ra sets <<<"${FTB_SETS:-default aslr-off thp-always}"
for set in "${sets[@]}"; do
  case $set in default|aslr-off|thp-always|malloc-thp) ;;
    *) echo "luck_causes.sh: FTB_SETS: unknown set '$set' (default, aslr-off, thp-always, malloc-thp)" >&2; exit 2 ;;
  esac
done
thp=/sys/kernel/mm/transparent_hugepage/enabled
was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp")
trap 'echo "$was" > "$thp" 2>/dev/null || true' EXIT
mkdir -p "$out"
run=(--preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1)
for k in $(seq 1 "$runs"); do
  for set in "${sets[@]}"; do
    dir="$out/$set/run-$k"; mkdir -p "$out/$set"
    case $set in
      default) echo "$was" > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      aslr-off) echo "$was" > "$thp"; setarch "$(uname -m)" -R "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      thp-always) echo always > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      malloc-thp) echo "$was" > "$thp"
        GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
    esac
  done
done
echo "$was" > "$thp"
for set in "${sets[@]}"; do
  "$ftbench" calibrate --reports "$out/$set"/run-*/report.json --out "$out/$set" > "$out/$set/calibrate.md"
done
# Each set against the first (tools/luck_causes_table.py: the sds' ratio,
# the F test of equal variances; then the same with the rounds' shared drift
# taken out); scipy from the project's venv.
"$(dirname "$0")/../.venv/bin/python" "$(dirname "$0")/luck_causes_table.py" "$out" "${sets[@]}" > "$out/causes.md"
cat "$out/causes.md"
