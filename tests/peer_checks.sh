#!/usr/bin/env bash
# The Python peer side by side (scenarios/peer_process.h, tools/peer.py): one
# `ftbench run` of baseline and peer, alternating by round, on a tiny config
# with dropout off. The peer must start from the same weights on the same
# batches in the same order: its step losses follow baseline's (same math in
# the same torch, so only float rounding apart). Exits 77 (ctest: skipped,
# with the reason) when the peer's python lacks torch or transformers, as in CI.
#   tests/peer_checks.sh FTBENCH
set -uo pipefail
ftbench="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [peer]: $*" >&2; exit 1; }

"$ftbench" run --scenarios baseline,peer --device cpu --out "$tmp/o" epochs=2 synthetic_count=200 max_steps=4 \
  eval_max_batches=0 warmup_steps=1 repeats=2 dropout=0 threads=1 >"$tmp/out" 2>"$tmp/err" ||
  fail "ftbench run failed: $(grep -v ' step ' "$tmp/err" | tail -5)"
[ ! -e "$tmp/o/peer-work" ] || fail "the hand-over files were left in the report folder"
python3 - "$tmp/o" <<'PY'
import json, sys
out = sys.argv[1]
r = json.load(open(out + "/report.json"))
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "peer"], list(rows)
peer, base = rows["peer"], rows["baseline"]
if peer["status"] == "skipped":
    print("skipped:", peer["reason"])
    sys.exit(77)
assert peer["status"] == "ok", peer["reason"]
assert r["environment"]["attn_implementation"] == "sdpa", r["environment"].get("attn_implementation")
assert peer["extra"]["attn_implementation"] in ("sdpa", "eager"), peer["extra"]
assert peer["extra"]["runtime"] == "python", peer["extra"]
assert peer["repeats"] == 2 and len(peer["samples"]) == 2, (peer["repeats"], peer["samples"])
assert peer["throughput"]["train_samples"] == base["throughput"]["train_samples"], (peer["throughput"], base["throughput"])
assert peer["accuracy"] == base["accuracy"], (peer["accuracy"], base["accuracy"])
assert peer["speedup"]["baseline"] == "baseline" and "paired by round" in peer["speedup"]["method"], peer["speedup"]
# Per-example test hits, placed in the split's order as ftbench's own rows:
# the same split, each repeat's count of hits its accuracy, and the paired
# judge against baseline reads them.
import base64
def hits(sample):
    t = sample["test_correct"]
    bits = base64.b64decode(t["base64"])
    return [(bits[i // 8] >> (i % 8)) & 1 for i in range(t["examples"])]
n = r["config"]["workload"]["test_examples"]
for s in peer["samples"]:
    h = hits(s)
    assert len(h) == n, (len(h), n)
    assert abs(sum(h) / n - s["test_acc"]) < 1e-9, (sum(h), n, s["test_acc"])
agree = sum(a == b for a, b in zip(hits(peer["samples"][0]), hits(base["samples"][0])))
assert agree >= n - 1, (agree, n)  # same math: at most a borderline example apart
assert peer["accuracy_vs_baseline"]["examples"] == n, peer.get("accuracy_vs_baseline")
steps = {}
for name in ("baseline", "peer"):
    with open(f"{out}/steps.csv") as f:
        head = f.readline().strip().split(",")
        rows_csv = [dict(zip(head, line.strip().split(","))) for line in f]
    steps[name] = [float(s["loss"]) for s in rows_csv if s["scenario"] == name]
assert len(steps["peer"]) == len(steps["baseline"]) == 8, steps
# Same weights and batches: the first loss agrees to float rounding; later ones
# drift only as rounding accumulates through Adam.
assert abs(steps["peer"][0] - steps["baseline"][0]) < 1e-5, steps
for a, b in zip(steps["peer"], steps["baseline"]):
    assert abs(a - b) < 1e-3, steps
print("peer ok: losses", steps["peer"][:3], "vs", steps["baseline"][:3],
      "| peer speed-up vs baseline", peer["speedup"]["end_to_end"])
PY
