#!/usr/bin/env python3
"""Do a calibration's run-to-run speed-up intervals agree with its own runs?

For each scenario against baseline: the speed-up of every A/A run (median of
its repeats' train_samples_per_s, log scale, row over baseline in the same
run), their sd, the speedup_cv the noise file holds (the r2r interval's sd),
the 95 % interval ftbench prints with --noise (estimate x/÷ exp(t(0.975, df)
speedup_cv)), and a leave-one-out check: is each run's speed-up inside the 95 %
prediction interval of the other runs?

  tools/r2r_check.py DIR      (DIR/noise.json, DIR/run-*/report.json; needs scipy)
"""
import glob
import json
import math
import statistics as st
import sys

from scipy import stats


def level(row):
    return st.median(math.log(s["train_samples_per_s"]) for s in row["samples"])


def main() -> int:
    d = sys.argv[1]
    noise = json.load(open(f"{d}/noise.json"))
    runs = [json.load(open(p)) for p in sorted(glob.glob(f"{d}/run-*/report.json"))]
    print(f"{len(runs)} runs of {d}; speed-up = train_samples_per_s over baseline's, in the same run\n")
    print("| scenario | speed-up of each run | sd of log speed-up | noise.json speedup_cv (df) "
          "| r2r 95 % interval x/÷ | runs inside the others' 95 % prediction interval |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for sc, metrics in sorted(noise["scenarios"].items()):
        e = metrics.get("train_samples_per_s", {})
        if "speedup_cv" not in e:
            continue
        logs = []
        for r in runs:
            by = {x["scenario"]: x for x in r["results"] if x["status"] == "ok"}
            if sc in by and "baseline" in by:
                logs.append(level(by[sc]) - level(by["baseline"]))
        k = len(logs)
        inside = 0
        for i in range(k):
            others = logs[:i] + logs[i + 1:]
            half = stats.t.ppf(0.975, k - 2) * st.stdev(others) * math.sqrt(1 + 1 / (k - 1))
            inside += abs(logs[i] - st.mean(others)) <= half
        width = math.exp(stats.t.ppf(0.975, e["speedup_df"]) * e["speedup_cv"])
        print(f"| {sc} | {', '.join('%.3f' % math.exp(x) for x in logs)} | {st.stdev(logs):.4f} "
              f"| {e['speedup_cv']:.4f} ({e['speedup_df']:.0f}) | {width:.3f} | {inside} of {k} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
