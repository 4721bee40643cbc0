#!/usr/bin/env python3
"""causes.md of tools/luck_causes.sh: each A/A set's run-to-run noise against
the first set's, twice.

    tools/luck_causes_table.py OUT SET [SET ...]      (the venv's python: scipy)

1. Each set's run-to-run sd of log train_samples_per_s (its calibrate
   noise.json), the ratio to the first set's and the two-sided p-value of
   the F test that the two variances are equal.
2. The same with the machine's drift taken out: the script interleaves the
   sets run by run, so round k (the k-th run of every set) shares what the
   machine did in those minutes. An additive model, log throughput = set
   level + round effect + a process's own luck, fitted by least squares;
   each set's residual sd (over its share of the (K-1)(S-1) residual degrees
   of freedom) is what a process did not share with its round (its own luck,
   and the drift inside the round's minutes), the round sd the drift the
   sets shared. Descriptive: the residuals of one round are not independent, so
   no test is printed for them.
Last, the smallest sd ratio the F test tells apart at 5 % with these runs
(modelled: the F distribution's 97.5 % point, normal noise).
"""
import json
import math
import statistics
import sys
from pathlib import Path

from scipy.stats import f


def read_round_logs(out, s, row):
    """The log throughputs of a set's runs in round order (run-1, run-2, ...)."""
    logs = []
    k = 1
    while (p := Path(out, s, f"run-{k}", "report.json")).exists():
        results = json.loads(p.read_text())["results"]
        logs.append(math.log(next(r for r in results if r["scenario"] == row)["throughput"]["train_samples_per_s"]))
        k += 1
    return logs


def main():
    out, sets = sys.argv[1], sys.argv[2:]
    if not sets:
        sys.exit("usage: tools/luck_causes_table.py OUT SET [SET ...]")
    noise = {s: json.loads(Path(out, s, "noise.json").read_text())["scenarios"] for s in sets}
    first = sets[0]
    print(f"| set | row | runs | run-to-run sd of log throughput | sd / {first}'s | F test p (two-sided) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for s in sets:
        for row, metrics in sorted(noise[s].items()):
            e, b = metrics["train_samples_per_s"], noise[first][row]["train_samples_per_s"]
            if s == first:
                ratio, p = "1", "-"
            else:
                F = (e["run_cv"] / b["run_cv"]) ** 2
                d1, d2 = e["runs"] - 1, b["runs"] - 1
                ratio = f"{e['run_cv'] / b['run_cv']:.2f}"
                p = f"{min(1.0, 2 * min(f.cdf(F, d1, d2), f.sf(F, d1, d2))):.3f}"
            print(f"| {s} | {row} | {e['runs']} | {100 * e['run_cv']:.2f} % | {ratio} | {p} |")

    print()
    print(f"The machine's drift taken out (rounds: the k-th run of every set; descriptive, no test):")
    print()
    print(f"| row | rounds | round sd (drift the sets shared) | set | residual sd (what its round did not share) | / {first}'s |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    runs = None
    for row in sorted(noise[first]):
        logs = [read_round_logs(out, s, row) for s in sets]
        K = min(len(x) for x in logs)
        S = len(sets)
        if K < 3 or S < 2:
            continue
        runs = K
        logs = [x[:K] for x in logs]
        level = [sum(x) / K for x in logs]
        grand = sum(level) / S
        rounds = [sum(logs[i][k] for i in range(S)) / S for k in range(K)]
        df = (K - 1) * (S - 1) / S  # each set's share of the residual degrees of freedom
        resid = [math.sqrt(sum((logs[i][k] - level[i] - rounds[k] + grand) ** 2 for k in range(K)) / df)
                 for i in range(S)]
        for i, s in enumerate(sets):
            head = f"| {row} | {K} | {100 * statistics.stdev(rounds):.2f} % |" if i == 0 else "| | | |"
            print(f"{head} {s} | {100 * resid[i]:.2f} % | {resid[i] / resid[0]:.2f} |")
    if runs:
        q = f.ppf(0.975, runs - 1, runs - 1)
        print()
        print(f"At {runs} runs a set the F test at 5 % (two-sided) tells two sets apart only when one sd is "
              f"{math.sqrt(q):.2f}x the other or more (modelled: F's 97.5 % point at {runs - 1} and {runs - 1} "
              f"degrees of freedom, {q:.2f}, under normal noise).")


if __name__ == "__main__":
    main()
