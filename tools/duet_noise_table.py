#!/usr/bin/env python3
"""The noise of A/A duets side by side: per row and mode, each side's
run-to-run sd (of the log of train_samples_per_s over pairs), the sd of the
pair's log ratio, its share of the sides' mean sd, and the correlation of
the sides. Reads duet.json files (ftbench duet), prints Markdown.

    tools/duet_noise_table.py DUET.json...
"""
import json
import sys


def pct(v):
    return "-" if v is None else f"{100 * v:.2f} %"


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    print("| mode | row | pairs | sd log A | sd log B | sd log ratio | ratio / sides' mean sd | corr A,B |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for r in d["rows"]:
            a, b, q = r.get("sd_log_a"), r.get("sd_log_b"), r.get("sd_log_ratio")
            share = q / ((a + b) / 2) if None not in (a, b, q) and a + b > 0 else None
            corr = r.get("correlation")
            print(f"| {d['mode']} | {r['scenario']} | {len(d['pairs'])} | {pct(a)} | {pct(b)} | {pct(q)} | "
                  f"{'-' if share is None else f'{share:.2f}'} | {'-' if corr is None else f'{corr:.2f}'} |")
    machine = paths[0].rsplit("/", 2)[0]
    print(f"\nsds over pairs (each pair's two processes started together in the duet, one after the other in the "
          f"sequential mode, alternating which goes first); from {', '.join(paths)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
