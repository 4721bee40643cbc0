#!/usr/bin/env bash
# The worked example of docs/nightly.md, made by this script and committed
# (never typed by hand): twelve nights built from a committed real report's
# repeats, each night with its own luck (2 %, shared by its repeats and
# rows) on top of the repeats' (1 %), nights 9 to 12 running 15 % slower
# (a step). Then what a nightly job sees:
#   regress-night9.md   night 9 against nights 1-8: REGRESSED (exit 1)
#   regress-night11.md  night 11 after nights 9-10 were accepted: the step is
#                       named once with its commits, no alarm (exit 0)
#   history.md          `history show`: the trend with its change point
#   trend_baseline.vl.json, .svg, .png   the trend as a picture (tools/render_charts.py)
#
#   tools/nightly_example.sh OUT_DIR [FTBENCH]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/tools/args.sh"
ftb_out_ftbench tools/nightly_example.sh "$root" "$@"
out="$(cd "$out" && pwd)"
src="$root/results/cpu-smoke-2026-11-30/report.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for n in $(seq 1 12); do
  python3 - "$src" "$work/n$n.json" "$n" <<'PY'
import json, random, sys
src, dst, night = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(src))
rng = random.Random(1000 + night)
r["environment"]["timestamp"] = "2026-11-%02dT02:00:00Z" % night
r["environment"]["git_commit"] = "c%03d" % night
luck = rng.lognormvariate(0, 0.02)
step = 0.85 if night >= 9 else 1.0
for res in r["results"]:
    for s in res.get("samples", []):
        f = step * luck * rng.lognormvariate(0, 0.01)
        for k in ("train_samples_per_s", "steady_samples_per_s", "train_tokens_per_s"): s[k] *= f
        for k in ("wall_time_s", "step_ms_median"): s[k] /= f
json.dump(r, open(dst, "w"), indent=1)
PY
done
db="$work/history.db"
# transcript FILE CMD...: a fenced block holding the command line, its output and its exit code.
transcript() {
  local file="$1"; shift
  local rc=0
  { echo '```text'; echo "\$ ftbench ${*:2}"; "$@" || rc=$?; echo "(exit code $rc)"; echo '```'; } > "$file"
}
cd "$work"
"$ftbench" history add "$db" "$work"/n{1..8}.json >/dev/null
transcript "$out/regress-night9.md" "$ftbench" regress --history history.db --current n9.json
"$ftbench" history add "$db" "$work/n9.json" "$work/n10.json" >/dev/null
transcript "$out/regress-night11.md" "$ftbench" regress --history history.db --current n11.json
"$ftbench" history add "$db" "$work/n11.json" "$work/n12.json" >/dev/null
transcript "$out/history.md" "$ftbench" history show history.db --scenario baseline --out charts
cp charts/trend_baseline.vl.json "$out/"
"$root/.venv/bin/python" "$root/tools/render_charts.py" "$out" > /dev/null
echo "wrote $out/regress-night9.md, regress-night11.md, history.md, trend_baseline.vl.json, .svg, .png"
