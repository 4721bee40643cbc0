#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang 14, ASan + UBSan) in
# build-fuzz/ and runs each one for a while; one line per target.
#
#   tools/fuzz.sh [seconds per target, default 60] [target...]
#
# Each run: -max_total_time=<seconds>, -timeout=10 (an input taking longer is
# a hang), -rss_limit_mb=2048 and -malloc_limit_mb=2048 (the memory bound: a
# parser needing more for a small input is a finding), the target's
# dictionary, and a working corpus in build-fuzz/corpus/<target> seeded from
# tests/fuzz/corpus/<target> (committed) and the committed fixtures. A finding
# lands in build-fuzz/findings/<target>/: fix it, then copy the input into
# tests/fuzz/corpus/<target>/ so the ctest fuzz.<target> replays it for good.
# FTB_FUZZ_SUMMARY=FILE also writes the table to FILE; FTB_FUZZ_JOBS=N fuzzes
# N targets at a time (one per core). Exit 1 on any finding.
# Not part of .ci/run (CI replays the committed corpus instead).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
build="${FTB_FUZZ_BUILD_DIR:-$root/build-fuzz}"
rss_mb=2048
log() { printf '[fuzz] %s\n' "$*" >&2; }

all=(safetensors hf_config vocab tokenizer csv imdb_archive imdb_folder jsonl report history_compare noise rank_env overrides)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
case "$seconds" in
  ''|*[!0-9]*|0) echo "tools/fuzz.sh: seconds '$seconds' is not a positive integer (usage: tools/fuzz.sh [SECONDS] [TARGET...])" >&2; exit 2 ;;
esac
for t in "${targets[@]}"; do
  case " ${all[*]} " in *" $t "*) ;; *) echo "tools/fuzz.sh: unknown target '$t' (one of: ${all[*]})" >&2; exit 2 ;; esac
done

for tool in clang++-14 ld.lld; do
  command -v "$tool" >/dev/null ||
    { echo "tools/fuzz.sh: $tool not found (apt-get install clang-14 libclang-rt-14-dev lld-14)" >&2; exit 2; }
done
if [ ! -f "$build/CMakeCache.txt" ]; then
  log "configuring $build"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  mkdir -p "$build"
  cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-14 \
        -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 1; }
fi
log "building"
cmake --build "$build" --target "${targets[@]}" >&2

# Seeds beyond tests/fuzz/corpus: committed fixtures and reports.
seeds() {
  case "$1" in
    safetensors) ls "$root"/tests/fixtures/golden_model/*.safetensors ;;
    hf_config) ls "$root"/tests/fixtures/golden_model/config.json ;;
    report|history_compare) ls "$root"/results/*/report.json "$root"/results/*/*/report.json "$root"/results/*/steps.csv ;;
  esac 2>/dev/null || true
}
dict() {
  case "$1" in
    safetensors) echo "$root/tests/fuzz/dict/safetensors.dict" ;;
    hf_config|jsonl|report|history_compare|noise) echo "$root/tests/fuzz/dict/json.dict" ;;
    overrides) echo "$root/tests/fuzz/dict/overrides.dict" ;;
    rank_env) echo "$root/tests/fuzz/dict/rank_env.dict" ;;
  esac
}
max_len() {  # bytes per input: the reports are tens of kB; the rest need less
  case "$1" in report|history_compare) echo 65536 ;; imdb_archive|imdb_folder) echo 16384 ;; *) echo 8192 ;; esac
}

# One target: fuzz it, then write its summary line to $build/<target>.line.
fuzz_one() {
  local t="$1" corpus="$build/corpus/$1" findings="$build/findings/$1" rc=0 d
  mkdir -p "$corpus" "$findings"
  cp -n "$root/tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  for s in $(seeds "$t"); do cp -n "$s" "$corpus/seed_$(echo "$s" | md5sum | cut -c1-12)" || true; done
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb"
              -max_len="$(max_len "$t")" -print_final_stats=1 -artifact_prefix="$findings/")
  d="$(dict "$t")"
  [ -n "$d" ] && args+=(-dict="$d")
  "$build/$t" "${args[@]}" "$corpus" >"$build/$t.log" 2>&1 || rc=$?
  # (|| true: a run that stops on its first input prints no status line)
  local execs last cov ft n_corpus n_found
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$t.log" | grep -o '[0-9]*$' | tail -n 1 || true)"
  last="$(grep -E '^#[0-9]+' "$build/$t.log" | tail -n 1 || true)"
  cov="$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*$' || true)"
  ft="$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*$' || true)"
  n_corpus="$(ls "$corpus" | wc -l)"
  n_found="$(ls "$findings" | wc -l)"
  [ "$rc" = 0 ] || [ "$n_found" -gt 0 ] || n_found="exit $rc"
  printf '%-16s %12s %8s %8s %7s %9s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$n_corpus" "$n_found" >"$build/$t.line"
  [ "$n_found" = 0 ] || log "$t: see $build/$t.log and $findings/"
}

# FTB_FUZZ_JOBS targets at a time (default 1; at most one per core makes
# sense, each fuzzer being one process on one core).
jobs_max="${FTB_FUZZ_JOBS:-1}"
case "$jobs_max" in ''|*[!0-9]*|0) echo "tools/fuzz.sh: FTB_FUZZ_JOBS=$jobs_max: not a positive integer" >&2; exit 2 ;; esac
summary="$(printf '%-16s %12s %8s %8s %7s %9s\n' target executions cov features corpus findings)"
printf '%s\n' "$summary"
for t in "${targets[@]}"; do rm -f "$build/$t.line"; done
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_one "$t" &
  [ "$jobs_max" -gt 1 ] || wait
done
wait
found=0
for t in "${targets[@]}"; do
  line="$(cat "$build/$t.line" 2>/dev/null || printf '%-16s %12s' "$t" "no result")"
  printf '%s\n' "$line"
  summary+=$'\n'"$line"
  echo "$line" | grep -qE ' 0$' || found=1
done
if [ -n "${FTB_FUZZ_SUMMARY:-}" ]; then
  mkdir -p "$(dirname "$FTB_FUZZ_SUMMARY")"
  { echo "# tools/fuzz.sh $seconds (seconds per target; -timeout=10 -rss_limit_mb=$rss_mb; $jobs_max at a time), $(date -u +%FT%TZ)"
    echo "# commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores"
    printf '%s\n' "$summary"; } >"$FTB_FUZZ_SUMMARY"
fi
exit $found
