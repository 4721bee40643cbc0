#!/usr/bin/env python3
"""Whether a duet's pair-to-pair noise is bursts or a whole slower stretch:
per row, the sd over pairs of three estimates of log(B / A) from the sides'
steps.csv (the same batches in the same order on both sides):

- throughput: log of A's total step time over B's (what the gate judges,
  up to the loader's wait);
- median: the median over steps of log(A step / B step) (drops bursts);
- trimmed: the mean of the middle 80 % of those per-step log ratios.

Bursts (a few slow steps on one side) leave the median calmer than the
throughput; a side slower for the whole row moves all three alike.
The warm-up steps each report names (efficiency.warmup_steps) are left out.

    tools/duet_step_ratio.py DIR/duet.json [...]     (pair-K/{a,b}/steps.csv beside it)
"""
import csv
import json
import math
import statistics
import sys
from pathlib import Path


def steps(path):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["scenario"], []).append((float(r["step_ms"]), r["seq_len"]))
    return rows


def warmup(report_path, row):
    results = json.loads(Path(report_path).read_text())["results"]
    return next(r for r in results if r["scenario"] == row)["efficiency"]["warmup_steps"]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tools/duet_step_ratio.py DIR/duet.json [...]")
    print("| job | row | pairs | sd over pairs: throughput | median step ratio | trimmed step ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for path in sys.argv[1:]:
        folder = Path(path).parent
        job = json.loads(Path(path).read_text())
        est = {}
        for k in range(1, len(job["pairs"]) + 1):
            a = steps(folder / f"pair-{k}/a/steps.csv")
            b = steps(folder / f"pair-{k}/b/steps.csv")
            for row in a:
                w = warmup(folder / f"pair-{k}/a/report.json", row)
                sa, sb = a[row][w:], b.get(row, [])[w:]
                if len(sa) != len(sb) or any(x[1] != y[1] for x, y in zip(sa, sb)) or len(sa) < 10:
                    sys.exit(f"{folder}/pair-{k}: {row}'s steps differ between the sides (not the same batches)")
                lr = sorted(math.log(y[0] / x[0]) for x, y in zip(sa, sb))
                cut = len(lr) // 10
                e = est.setdefault(row, ([], [], []))
                e[0].append(math.log(sum(x[0] for x in sa) / sum(y[0] for y in sb)))
                e[1].append(statistics.median(lr))
                e[2].append(statistics.mean(lr[cut:len(lr) - cut]))
        for row, (tot, med, trim) in est.items():
            sds = " | ".join(f"{100 * statistics.stdev(x):.2f} %" for x in (tot, med, trim))
            print(f"| {folder.parent.name}/{folder.name} | {row} | {len(tot)} | {sds} |")
    print()
    print("log(B / A) per pair from each side's steps.csv, warm-up steps left out; sds over pairs.")


if __name__ == "__main__":
    main()
