#!/usr/bin/env python3
"""Summarises reports run with seed_per_repeat=on (tools/accuracy_example.sh):
per row against baseline, each seed's paired table on the test split (the
report's per-example hits, decoded here) with its exact McNemar p, and the
report's own verdict over seeds (accuracy_vs_baseline). Markdown on stdout.
  tools/accuracy_summary.py REPORT.json [REPORT.json ...]"""
import base64
import json
import math
import sys


def bits(sample):
    tc = sample.get("test_correct")
    if not tc:
        return None
    raw = base64.b64decode(tc["base64"])
    return [(raw[i // 8] >> (i % 8)) & 1 for i in range(tc["examples"])]


def mcnemar_p(b, c):
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, k) for k in range(min(b, c) + 1)) / 2 ** m
    return min(1.0, 2 * tail)


def summarise(path):
    with open(path) as f:
        report = json.load(f)
    rows = {r["scenario"]: r for r in report["results"] if r.get("status") == "ok"}
    base = rows.get("baseline")
    if base is None:
        sys.exit(f"{path}: no ok baseline row")
    n_seeds = len(base["samples"])
    seed0 = report["config"].get("train_seed") or report["config"].get("seed")
    print(f"**{n_seeds} seeds** ({seed0} + i), {report['config']['workload']['test_examples']} test examples: `{path}`\n")
    print("| row | seed | baseline acc % | row acc % | only baseline right | only row right | difference (points) | McNemar p |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, r in rows.items():
        if name == "baseline":
            continue
        for i, (a, b) in enumerate(zip(base["samples"], r["samples"])):
            x, y = bits(a), bits(b)
            if x is None or y is None:
                continue
            only_a = sum(1 for p, q in zip(x, y) if p and not q)
            only_b = sum(1 for p, q in zip(x, y) if q and not p)
            n = len(x)
            print(f"| {name} | {seed0 + i} | {100 * sum(x) / n:.2f} | {100 * sum(y) / n:.2f} | {only_a} | {only_b} | "
                  f"{100 * (only_b - only_a) / n:+.2f} | {mcnemar_p(only_a, only_b):.3g} |")
    print()
    for name, r in rows.items():
        v = r.get("accuracy_vs_baseline")
        if not v:
            continue
        low, high = v["low_points"], v["high_points"]
        interval = f"[{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else "none"
        print(f"- **{name}** over {v['seeds']} seeds ({v['basis']}): difference {v['difference_points']:+.2f} points, "
              f"95 % interval {interval}, sd over seeds {v.get('seed_sd_points', float('nan')):.2f}, p {v['p_value']:.3g}: "
              f"keeps accuracy **{v['keeps_accuracy']}** ({v['explanation']}).")
    print()


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write("usage: tools/accuracy_summary.py REPORT.json [REPORT.json ...]\n")
        return 2
    for path in argv[1:]:
        summarise(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
