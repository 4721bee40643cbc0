#!/usr/bin/env python3
"""The noise of A/A duets side by side: per row and mode, each side's
run-to-run sd (of the log of train_samples_per_s over pairs), the sd of the
pair's log ratio, its share of the sides' mean sd, and the correlation of
the sides; and the core effect: half the difference between the pairs'
mean log ratio with side B on the second core set and with it on the first
(the sides swap core sets pair by pair, so a core slower than the other
moves every pair's ratio by about this much, one way or the other, and the
swap cancels it in the mean but not in the sd; "-" where every pair used
the same cores, as the sequential mode does). Reads duet.json files
(ftbench duet), prints Markdown.

    tools/duet_noise_table.py DUET.json...
"""
import json
import sys


def pct(v):
    return "-" if v is None else f"{100 * v:.2f} %"


def core_effect(d, row):
    """Half the difference of the mean log ratio between the two arms of the swap."""
    arms = {}
    for p in d["pairs"]:
        v = p["train_samples_per_s"].get(row, {}).get("log_ratio")
        if v is not None:
            arms.setdefault(tuple(p["b"]["cores"]), []).append(v)
    if len(arms) != 2:
        return None
    first, second = (sum(v) / len(v) for _, v in sorted(arms.items()))
    return (second - first) / 2


def job(path):
    """The job's folder and the one holding it: "duet-example-2026-12-07/aa-duet"."""
    parts = path.replace("\\", "/").split("/")[:-1]
    return "/".join(parts[-2:]) or "."


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    print("| job | mode | row | pairs | sd log A | sd log B | sd log ratio | ratio / sides' mean sd | corr A,B | core effect |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for r in d["rows"]:
            a, b, q = r.get("sd_log_a"), r.get("sd_log_b"), r.get("sd_log_ratio")
            share = q / ((a + b) / 2) if None not in (a, b, q) and a + b > 0 else None
            corr, core = r.get("correlation"), core_effect(d, r["scenario"])
            print(f"| {job(p)} | {d['mode']} | {r['scenario']} | {len(d['pairs'])} | {pct(a)} | {pct(b)} | {pct(q)} | "
                  f"{'-' if share is None else f'{share:.2f}'} | {'-' if corr is None else f'{corr:.2f}'} | "
                  f"{'-' if core is None else f'{100 * core:+.2f} %'} |")
    print(f"\nsds over pairs (each pair's two processes started together in the duet, one after the other in the "
          f"sequential mode, alternating which goes first); from {', '.join(paths)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
