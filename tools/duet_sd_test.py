#!/usr/bin/env python3
"""Whether one duet design's pairs are less noisy than another's: per row,
each job's sd over pairs of the log ratio B / A (duet.json's pairs), its
ratio to the first job's, and the two-sided p-value of the F test that the
two variances are equal (pairs are independent; normal noise assumed).

    tools/duet_sd_test.py FIRST/duet.json OTHER/duet.json [...]   (the venv's python: scipy)
"""
import json
import math
import statistics
import sys

from scipy.stats import f


def log_ratios(path):
    pairs = json.load(open(path))["pairs"]
    rows = {}
    for p in pairs:
        for row, t in p["train_samples_per_s"].items():
            if t.get("log_ratio") is not None:
                rows.setdefault(row, []).append(t["log_ratio"])
    return rows


def job_name(path, rotate):
    name = path.rstrip("/").split("/")[-2] if "/" in path else path
    return f"{name} (trades every {rotate:g} s)" if rotate else f"{name} (no trades)"


def main():
    paths = sys.argv[1:]
    if len(paths) < 2:
        sys.exit("usage: tools/duet_sd_test.py FIRST/duet.json OTHER/duet.json [...]")
    jobs = [(job_name(p, json.load(open(p)).get("rotate_s", 0)), log_ratios(p)) for p in paths]
    first_name, first = jobs[0]
    print(f"| row | job | pairs | sd log ratio | sd / first's | F test p (two-sided) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in first:
        for name, rows in jobs:
            xs = rows.get(row, [])
            if len(xs) < 2:
                continue
            v, v0 = statistics.variance(xs), statistics.variance(first[row])
            if rows is first:
                ratio, p = "1", "-"
            else:
                F = v / v0
                d1, d2 = len(xs) - 1, len(first[row]) - 1
                ratio = f"{math.sqrt(F):.2f}"
                p = f"{min(1.0, 2 * min(f.cdf(F, d1, d2), f.sf(F, d1, d2))):.4f}"
            print(f"| {row} | {name} | {len(xs)} | {100 * math.sqrt(v):.2f} % | {ratio} | {p} |")
    print()
    print(f"First job: {first_name}; from " + ", ".join(paths) + ".")


if __name__ == "__main__":
    main()
