#!/usr/bin/env python3
"""ftbench's change points against Apache Otava's on the same series.

Where `otava` (PyPI apache-otava) imports, builds three series of nightly
reports from a committed report's repeats (flat, one step, two steps; each
night with its own luck), lets `ftbench history show` find the change points,
runs otava.analysis.compute_change_points on the same nights' medians, and
fails when ftbench misses a level change the series has, finds one it does
not have, or misses one Otava finds. (Otava may miss one that ftbench finds:
on 8 + 6 + 6 nights its first split is not significant and it stops.) Exits 77 (skipped)
where otava is not installed: CI does not need it.

  tests/otava_check.py FTBENCH REPORT
"""
import json
import pathlib
import random
import re
import statistics
import subprocess
import sys
import tempfile

try:
    from otava.analysis import compute_change_points
except ImportError as e:  # not installed here: skipped, saying why
    print(f"skipped: apache-otava is not importable ({e}); pip install apache-otava scipy to run this check")
    sys.exit(77)

ftbench, source = sys.argv[1], sys.argv[2]

SERIES = {
    "flat": [1.0] * 16,
    "one step": [1.0] * 10 + [0.85] * 6,
    "two steps": [1.0] * 10 + [1.2] * 10 + [0.9] * 10,
    "two short steps": [1.0] * 8 + [1.2] * 6 + [0.9] * 6,
}


def nights(factors, seed):
    base = json.load(open(source))
    rng = random.Random(seed)
    out = []
    for k, factor in enumerate(factors):
        r = json.loads(json.dumps(base))
        r["environment"]["timestamp"] = "2026-11-%02dT02:00:00Z" % (k + 1)
        r["environment"]["git_commit"] = "c%03d" % (k + 1)
        luck = rng.lognormvariate(0, 0.01)
        r["results"] = [res for res in r["results"] if res["scenario"] == "baseline"]
        for s in r["results"][0]["samples"]:
            f = factor * luck * rng.lognormvariate(0, 0.01)
            for key in ("train_samples_per_s", "steady_samples_per_s", "train_tokens_per_s"):
                s[key] *= f
            for key in ("wall_time_s", "step_ms_median"):
                s[key] /= f
        out.append(r)
    return out


failures = []
for name, factors in SERIES.items():
    with tempfile.TemporaryDirectory() as d:
        reports = nights(factors, seed=len(name))
        paths = []
        for k, r in enumerate(reports):
            p = pathlib.Path(d) / f"n{k + 1}.json"
            p.write_text(json.dumps(r))
            paths.append(str(p))
        db = str(pathlib.Path(d) / "h.db")
        subprocess.run([ftbench, "history", "add", db, *paths], check=True, capture_output=True)
        shown = subprocess.run([ftbench, "history", "show", db, "--scenario", "baseline"], check=True,
                               capture_output=True, text=True).stdout
        rows = [line for line in shown.splitlines() if re.match(r"^\| 2026-", line)]
        ours = [i for i, line in enumerate(rows) if "**step" in line]
        medians = [statistics.median(s["train_samples_per_s"] for s in r["results"][0]["samples"]) for r in reports]
        theirs = sorted(cp.index for cp in compute_change_points(medians, max_pvalue=0.001)[0])
        truth = [i for i in range(1, len(factors)) if factors[i] != factors[i - 1]]
        print(f"{name}: true {truth}, ftbench {ours}, otava {theirs}")
        if ours != truth:
            failures.append(f"{name}: ftbench finds change points at {ours}, the series has them at {truth}")
        if not set(theirs) <= set(ours):
            failures.append(f"{name}: otava finds {theirs}, ftbench only {ours}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
