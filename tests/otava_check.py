#!/usr/bin/env python3
"""ftbench's change points against Apache Otava's on the same random series.

Builds SERIES random series of nightly reports (seeded, from a committed
report's baseline row): a third flat, a third with one step, a third with two;
12 to 30 nights; steps of 8 to 20 % up or down, each level at least 4 nights
long; each night with its own luck (lognormal, 1 %) and each of its 3 repeats
its own (1 %). ftbench finds the change points through `history add` and
`history show` (the **step marks); Otava (otava.analysis.compute_change_points,
max_pvalue 0.001, its default window of 50 nights) gets the same nights'
levels: the log of each night's median, what ftbench splits.

Required (REQUIRED below), and measured (seed 26, apache-otava 0.8.0):
  - flat and one-step series: ftbench and Otava name the same nights on at
    least 95 % (measured 79 of 80, 98.8 %: Otava adds a step that is not
    there once), and ftbench exactly the true steps on at least 95 % (80 of
    80);
  - two-step series: ftbench names exactly the true steps on at least 95 %
    (40 of 40; Otava 27 of 40), and the same nights as Otava on at least
    65 % (27 of 40, 67.5 %: where they differ, Otava misses a level that
    leaves and comes back, 8 series, or adds a step that is not there, 5);
  - all 120: the same nights on 106 (88 %).
  Before issue 36 ftbench missed both steps of a level that leaves and comes
  back in 9 two-step series (31 of 40 exact; binary segmentation: no single
  split of the whole series separates it at p < 0.001). It now proposes such
  a level as two changes (the interval of the segment that maximises
  E-divisive's statistic against the rest) beside Otava's relaxed first pass
  (p < 0.01), and keeps those that pass Otava's merge (each change against
  its neighbouring segments at p < 0.001).

Exits 77 (skipped) where otava is not importable: tools/setup.sh --tests
installs it (CI does).

  tests/otava_check.py FTBENCH REPORT
"""
import datetime
import json
import math
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
    print(f"skipped: apache-otava is not importable ({e}); tools/setup.sh --tests installs it")
    sys.exit(77)

SEED = 26
SERIES = 120  # k % 3 steps: 40 flat, 40 with one step, 40 with two
KINDS = {0: "flat", 1: "one step", 2: "two steps"}
# kinds -> (least share with the same nights as Otava, least share with exactly the true steps)
REQUIRED = {(0, 1): (0.95, 0.95), (2,): (0.65, 0.95)}

ftbench, source = sys.argv[1], sys.argv[2]
base = json.load(open(source))
base["results"] = [res for res in base["results"] if res["scenario"] == "baseline"]
base_samples = base["results"][0]["samples"][:3]


def random_factors(rng, steps):
    """Each night's true level (1 = the first level), with `steps` steps."""
    nights = rng.randint(12, 30)
    cuts = []
    while len(cuts) < steps:  # each level at least 4 nights long
        cuts = sorted(rng.sample(range(4, nights - 3), steps))
        if any(b - a < 4 for a, b in zip(cuts, cuts[1:])):
            cuts = []
    factors, level = [], 1.0
    for k in range(nights):
        if k in cuts:
            level *= 1 + rng.choice((-1, 1)) * rng.uniform(0.08, 0.20)
        factors.append(level)
    return factors, cuts


def nightly_reports(rng, factors, series):
    """One report a night. Each series has a config of its own (its seed), so
    one history holds them all apart, and nights of its own (40 days a series),
    so `history show` lists each series' nights together, in order."""
    out = []
    start = datetime.datetime(2026, 1, 1, 2, 0, 0) + datetime.timedelta(days=40 * series)
    for k, factor in enumerate(factors):
        r = json.loads(json.dumps(base))
        r["config"]["seed"] = 1000 + series
        r["environment"]["timestamp"] = (start + datetime.timedelta(days=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
        r["environment"]["git_commit"] = "s%03dn%02d" % (series, k + 1)
        luck = rng.lognormvariate(0, 0.01)
        r["results"][0]["samples"] = json.loads(json.dumps(base_samples))
        for s in r["results"][0]["samples"]:
            f = factor * luck * rng.lognormvariate(0, 0.01)
            for key in ("train_samples_per_s", "steady_samples_per_s", "train_tokens_per_s"):
                s[key] *= f
            for key in ("wall_time_s", "step_ms_median"):
                s[key] /= f
        out.append(r)
    return out


def ftbench_steps(all_reports):
    """Each series' change points as `history show` marks them (**step), by
    night: one history for every series (two ftbench calls, not two a series)."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for k, reports in enumerate(all_reports):
            for n, r in enumerate(reports):
                p = pathlib.Path(d) / f"s{k}n{n}.json"
                p.write_text(json.dumps(r))
                paths.append(str(p))
        db = str(pathlib.Path(d) / "h.db")
        subprocess.run([ftbench, "history", "add", db, *paths], check=True, capture_output=True)
        shown = subprocess.run([ftbench, "history", "show", db, "--scenario", "baseline", "--window", "100"],
                               check=True, capture_output=True, text=True).stdout
    rows = [line for line in shown.splitlines() if re.match(r"^\| 20\d\d-", line)]
    assert len(rows) == len(paths), f"history show printed {len(rows)} rows for {len(paths)} nights"
    out = []
    for k, reports in enumerate(all_reports):
        mine, rows = rows[:len(reports)], rows[len(reports):]
        assert all(f"s{k:03d}n" in line for line in mine), f"series {k}'s rows are not together: {mine}"
        out.append([i for i, line in enumerate(mine) if "**step" in line])
    return out


rng = random.Random(SEED)
truths, all_reports = [], []
for k in range(SERIES):
    factors, truth = random_factors(rng, steps=k % 3)
    truths.append(truth)
    all_reports.append(nightly_reports(rng, factors, k))
same, true_ours, true_theirs = [0, 0, 0], [0, 0, 0], [0, 0, 0]
for k, (truth, reports, ours) in enumerate(zip(truths, all_reports, ftbench_steps(all_reports))):
    levels = [math.log(statistics.median(s["train_samples_per_s"] for s in r["results"][0]["samples"]))
              for r in reports]
    theirs = sorted(int(cp.index) for cp in compute_change_points(levels, max_pvalue=0.001)[0])
    kind = k % 3
    same[kind] += ours == theirs
    true_ours[kind] += ours == truth
    true_theirs[kind] += theirs == truth
    if ours != theirs or ours != truth:
        steps = " ".join(f"{100 * (levels[i] - levels[i - 1]):+.0f} %" for i in truth)
        print(f"series {k} ({len(reports)} nights; true steps {truth} {steps}): ftbench {ours}, otava {theirs}")

failures = []
for kinds, (min_same, min_true) in REQUIRED.items():
    n = SERIES // 3 * len(kinds)
    s, o, t = (sum(c[i] for i in kinds) for c in (same, true_ours, true_theirs))
    label = " and ".join(KINDS[i] for i in kinds)
    print(f"{label}: the same nights as Otava on {s} of {n} (required {min_same:.0%}); "
          f"exactly the true steps on {o} (required {min_true:.0%}; Otava {t})")
    if s < min_same * n:
        failures.append(f"{label}: ftbench and Otava disagree on {n - s} of {n} series")
    if o < min_true * n:
        failures.append(f"{label}: ftbench misses or invents steps in {n - o} of {n} series")
print(f"all {SERIES} series (seed {SEED}): the same nights as Otava on {sum(same)}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
