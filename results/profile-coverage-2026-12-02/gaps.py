"""Gaps between host operators inside the profiled steps of a Chrome trace
written by `ftbench run --profile`: the step time covered by no cpu_op on
any thread, each gap above a threshold with the operators either side.
Usage: python3 gaps.py TRACE.json.gz [min_ms=0.5]"""
import gzip
import json
import sys

path = sys.argv[1]
min_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
trace = json.load(gzip.open(path))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
steps = sorted((e for e in events if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")),
               key=lambda e: e["ts"])
ops = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"), key=lambda e: e["ts"])
total_wall = total_gap = 0.0
gaps = []
for s in steps:
    a, b = s["ts"], s["ts"] + s["dur"]
    inside = [o for o in ops if o["ts"] >= a and o["ts"] + o["dur"] <= b]
    end, last = a, "(step start)"
    for o in inside:
        if o["ts"] > end:
            g = (o["ts"] - end) / 1e3
            total_gap += g
            if g >= min_ms:
                gaps.append((g, s["name"], last, o["name"]))
        if o["ts"] + o["dur"] > end:
            end, last = o["ts"] + o["dur"], o["name"]
    if b > end:
        g = (b - end) / 1e3
        total_gap += g
        if g >= min_ms:
            gaps.append((g, s["name"], last, "(step end)"))
    total_wall += s["dur"] / 1e3
print(f"{path}: {len(steps)} steps, {total_wall:.1f} ms, not in any operator {total_gap:.1f} ms "
      f"({100 * total_gap / total_wall:.1f} %); gaps >= {min_ms} ms: {len(gaps)}, summing {sum(g[0] for g in gaps):.1f} ms")
for g, step, before, after in gaps:
    print(f"  {g:6.2f} ms in {step}: after {before}, before {after}")
