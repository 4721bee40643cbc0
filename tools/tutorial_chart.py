#!/usr/bin/env python3
"""A chart of the tutorial's speed-ups beside ftbench's on the same rows:
per tutorial step, its published speed-up over its plain loop (minutes of
step 1 over the step's) and ftbench's end-to-end speed-up over baseline
with the report's interval, in the tutorial's order, against 1.0. Writes a
Vega-Lite spec; tools/render_charts.py renders it (SVG, PNG).

Reads: the tutorial's table, results/reference/tutorial-results.md (its
"time" column; no JSON holds it), the GPU it names in
results/reference/README.md, and an ftbench report.json
(results[].speedup.end_to_end, environment.cpu.model).

    tools/tutorial_chart.py --out DIR/tutorial.vl.json REPORT.json [REFERENCE_DIR]
"""
import json
import pathlib
import re
import sys

# Tutorial step -> its name here and ftbench's rows for it (docs/reference.md),
# the first the report ran; step 4 is timed warmed up, as ftbench's cuda_graph.
STEPS = [("1", "plain loop", ["baseline"]), ("2", "Trainer", ["trainer"]),
         ("3", "mixed precision", ["amp", "amp_bf16"]), ("4", "torch.compile", ["cuda_graph"]),
         ("5", "DDP", ["ddp"]), ("5b", "sharded DDP", ["sharded"]), ("6", "ZeRO-2", ["zero2"]),
         ("7", "Fabric", ["fabric"])]
TUTORIAL, OURS = "the tutorial", "ftbench"


def tutorial_minutes(md_path):
    """{step: minutes} from the table's time column (step 4: warmed up)."""
    out = {}
    for line in pathlib.Path(md_path).read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not re.fullmatch(r"\d+b?", cells[0]):
            continue
        warmed = re.search(r"([\d.]+) min when compilation is warmed", cells[3])
        first = re.search(r"([\d.]+) min", cells[3])
        out[cells[0]] = float((warmed or first).group(1))
    return out


def values_of(report_path, ref_dir):
    minutes = tutorial_minutes(pathlib.Path(ref_dir, "tutorial-results.md"))
    with open(report_path) as f:
        report = json.load(f)
    results = {r["scenario"]: r for r in report["results"]}
    values = []
    for step, name, rows in STEPS:
        ran = [r for r in rows if results.get(r, {}).get("status") == "ok"]
        row = ran[0] if ran else rows[0]
        label = f"{step} {name} ({row})"
        values.append({"step": label, "who": TUTORIAL, "speedup": minutes["1"] / minutes[step]})
        if ran:
            e = results[row]["speedup"]["end_to_end"]
            values.append({"step": label, "who": OURS, "speedup": e["median"], "low": e["low"], "high": e["high"],
                           "coverage": e.get("coverage")})
        else:
            values.append({"step": label, "who": OURS, "note": "not run here"})
    return values, report


def subtitle(report, ref_dir):
    readme = pathlib.Path(ref_dir, "README.md").read_text()
    gpu = re.search(r"on one (\S+) unless", readme.replace("\n", " "))
    env = report["environment"]
    cov = {r["speedup"]["end_to_end"].get("coverage") for r in report["results"] if r.get("status") == "ok"}
    cov = "/".join(f"{100 * c:g} %" for c in sorted(c for c in cov if c))
    return [f"the tutorial: one {gpu.group(1) if gpu else 'GPU'}, 4 GPUs for steps 5-7",
            f"ftbench: {env['cpu']['model']}, {env['cpu']['logical_cores']} cores, no GPU,",
            f"preset {report['config'].get('preset')}, 2 ranks for steps 5-7; bars: {cov} intervals"]


def spec(values, report, ref_dir):
    order = list(dict.fromkeys(v["step"] for v in values))
    y = {"field": "step", "type": "nominal", "sort": order, "title": None}
    colour = {"field": "who", "type": "nominal", "title": None, "scale": {"domain": [TUTORIAL, OURS],
              "range": ["#f58518", "#4c78a8"]}, "legend": {"orient": "bottom"}}
    x_scale = {"type": "log", "domain": [0.2, 16], "nice": False}
    x = {"field": "speedup", "type": "quantitative", "scale": x_scale,
         "title": "speed-up over the plain loop (x, log scale; > 1: faster)",
         "axis": {"values": [0.25, 0.5, 1, 2, 4, 8, 16], "format": "~g"}}
    measured = {"filter": "isValid(datum.speedup)"}
    layer = [
        {"mark": {"type": "rule", "color": "#555", "strokeDash": [4, 4]}, "encoding": {"x": {"datum": 1, "scale": x_scale}}},
        {"transform": [{"filter": "isValid(datum.low)"}], "mark": {"type": "rule", "strokeWidth": 2},
         "encoding": {"y": y, "yOffset": {"field": "who", "sort": [TUTORIAL, OURS]},
                      "x": {"field": "low", "type": "quantitative", "scale": x_scale}, "x2": {"field": "high"},
                      "color": colour}},
        {"transform": [measured], "mark": {"type": "point", "filled": True, "size": 70},
         "encoding": {"y": y, "yOffset": {"field": "who", "sort": [TUTORIAL, OURS]}, "x": x, "color": colour}},
        # the value right of its interval (or point), never over the bar
        {"transform": [measured, {"calculate": "isValid(datum.high) ? datum.high : datum.speedup", "as": "at"}],
         "mark": {"type": "text", "align": "left", "dx": 7, "fontSize": 10},
         "encoding": {"y": y, "yOffset": {"field": "who", "sort": [TUTORIAL, OURS]},
                      "x": {"field": "at", "type": "quantitative", "scale": x_scale},
                      "text": {"field": "speedup", "format": ".2f"}, "color": colour}},
        {"transform": [{"filter": "isValid(datum.note)"}],
         "mark": {"type": "text", "align": "left", "fontStyle": "italic", "fontSize": 10, "color": "#4c78a8"},
         "encoding": {"y": y, "yOffset": {"field": "who", "sort": [TUTORIAL, OURS]}, "x": {"datum": 1.05, "scale": x_scale},
                      "text": {"field": "note"}}},
    ]
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": "The tutorial's speed-ups beside ftbench's", "subtitle": subtitle(report, ref_dir),
                  "anchor": "start"},
        "data": {"values": values},
        "width": 380, "height": {"step": 20},
        "layer": layer,
    }


def main(argv):
    if len(argv) < 4 or argv[1] != "--out":
        print(__doc__, file=sys.stderr)
        return 2
    ref_dir = argv[4] if len(argv) > 4 else str(pathlib.Path(__file__).resolve().parent.parent / "results/reference")
    values, report = values_of(argv[3], ref_dir)
    with open(argv[2], "w") as f:
        json.dump(spec(values, report, ref_dir), f, indent=1)
        f.write("\n")
    print(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
