#!/usr/bin/env bash
# The nightly gate's error rates on uneven noise, as docs/statistics.md shows
# them: `ftbench power` (the real judge_nights, seeded) for every setting of
# tests/test_nightly_simulation.cpp, with the same seed and trials, gathered
# into one table. Never typed by hand.
#
#   tools/nightly_simulation.sh OUT_DIR [FTBENCH]
#     OUT_DIR/power-<setting>.md   each setting's `ftbench power` output
#     OUT_DIR/power.md             `ftbench power` with its defaults (the detection curve)
#     OUT_DIR/table.md             the table docs/statistics.md includes
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/tools/args.sh"
ftb_out_ftbench tools/nightly_simulation.sh "$root" "$@"
trials=2000
settings=(
  "homogeneous|10 scenarios, 2 % between, 3 % within, half of a night's luck shared, 8 nights|"
  "aa-cpu|the calibration results/aa-cpu-2026-12-01 (each scenario its own noise)|--noise $root/results/aa-cpu-2026-12-01/noise.json"
  "aa-cpu-sync|the calibration results/aa-cpu-sync-2026-12-01|--noise $root/results/aa-cpu-sync-2026-12-01/noise.json"
  "aa-cpu-malloc-default|the calibration results/aa-cpu-malloc-default-2026-12-01|--noise $root/results/aa-cpu-malloc-default-2026-12-01/noise.json"
  "mixed|2 scenarios at 4 % between + 8 at 2 %|--noise $out/mixed-noise.json"
  "unshared|as homogeneous, no luck shared by the night's scenarios|--shared 0"
  "shared90|as homogeneous, 90 % of the night's luck shared|--shared 0.9"
  "outlier|as homogeneous, one -40 % night of another scenario mid-window|--outlier -0.4"
  "outlier3|as outlier, 3 scenarios|--outlier -0.4 --scenarios 3"
  "outlier4|as outlier, 4 scenarios|--outlier -0.4 --scenarios 4"
  "short3|as homogeneous, 3-night history|--nights 3"
  "short3-one|one scenario, 3-night history|--nights 3 --scenarios 1"
)
# The mixed setting as a noise file: within 3 %, between 4 % (2 scenarios) or 2 % (8).
python3 - "$out/mixed-noise.json" <<'PY'
import json, sys
sc = {}
for i in range(10):
    e = {"runs": 6, "repeats": 30, "run_medians": [], "run_cv": 0.0, "run_df": 5, "within_cv": 0.03,
         "between_cv": 0.04 if i < 2 else 0.02, "between_share": 0.0, "min_detectable_change": 0.0}
    sc["s%d" % i] = {"train_samples_per_s": e}
json.dump({"schema": "ftbench.noise/2", "machine": "simulated", "preset": "smoke", "config_hash": "-",
           "runs": 6, "window": 8, "series": 10, "rule": {"family_alpha": 0.005, "min_effect": 0.03},
           "scenarios": sc}, open(sys.argv[1], "w"), indent=1)
PY
# The default detection curve, as docs/statistics.md shows it.
{ echo '```text'; echo '$ ftbench power'; "$ftbench" power; echo '```'; } >"$out/power.md"
rows=()
for s in "${settings[@]}"; do
  IFS='|' read -r name words flags <<<"$s"
  # shellcheck disable=SC2086
  "$ftbench" power --trials "$trials" --slowdowns 0,0.15 $flags >"$out/power-$name.md"
  rows+=("$name|$words|$out/power-$name.md")
done
python3 - "$out/table.md" "${rows[@]}" <<'PY'
import re, sys
dst, rows = sys.argv[1], sys.argv[2:]
lines = ["| setting | scenarios | nights | repeats | whole-report false alarms | 95 % upper bound | 15 % slowdown caught |",
         "| ------- | --------: | -----: | ------: | ------------------------: | ---------------: | -------------------: |"]
for row in rows:
    name, words, path = row.split("|")
    text = open(path).read()
    head = re.search(r"(\d+) scenario\(s\) a report, (\d+) nights of history, (\d+) repeats a night", text)
    fa = re.search(r"false alarms \(nothing slowed\): (\d+) of (\d+) nights, ([\d.]+) % \(one-sided 95 % upper bound ([\d.]+) %\)", text)
    caught = re.search(r"^\|\s+15\.0 % \|\s+([\d.]+ %)", text, re.M)
    if caught:
        got = caught.group(1) + " (scenario 1)"
    else:  # --noise: one row per scenario slowed, its column "caught at 15 %"
        per = re.findall(r"^\|\s*(\S+)\s*\|\s*[\d.]+ % \|\s*[\d.]+ % \|\s*([\d.]+) % \|", text, re.M)
        vals = [float(v) for _, v in per]
        got = "%.1f to %.1f %% (by scenario)" % (min(vals), max(vals)) if vals else "?"
    lines.append("| %s | %s | %s | %s | %s of %s (%s %%) | %s %% | %s |" % (
        words, head.group(1), head.group(2), head.group(3), fa.group(1), fa.group(2), fa.group(3), fa.group(4), got))
open(dst, "w").write("\n".join(lines) + "\n")
PY
echo "wrote $out/table.md"
