#!/usr/bin/env python3
"""A chart of each scenario's noise from `ftbench calibrate`: per scenario,
the within-run sd (one repeat around its run), the between-run sd (the part
no number of repeats removes) and the minimum detectable slowdown (what the
nightly rule catches 90 % of the time), one panel per calibration (machine),
so a reader sees which rows are noisy. Writes a Vega-Lite spec;
tools/render_charts.py renders it (SVG, PNG).

Reads: each calibration's noise.json (`ftbench calibrate --out DIR`):
scenarios.<row>.<metric>.{within_cv, between_cv, min_detectable_change},
machine, runs, window; metric train_samples_per_s unless --metric.

    tools/noise_chart.py --out FILE.vl.json [--metric M] NOISE.json...
"""
import json
import pathlib
import sys

MEASURES = ["within-run sd", "between-run sd", "min detectable slowdown"]


def values_of(path, metric):
    with open(path) as f:
        d = json.load(f)
    machine = d["machine"].split(" | ")[-1]
    panel = f"{machine}: {d['runs']} runs ({pathlib.Path(path).resolve().parent.name})"
    out = []
    for row, metrics in sorted(d["scenarios"].items()):
        m = metrics[metric]
        for measure, key in zip(MEASURES, ("within_cv", "between_cv", "min_detectable_change")):
            if m.get(key) is not None:
                out.append({"panel": panel, "row": row, "measure": measure, "percent": 100 * m[key]})
    return out, d


def spec(values, d, metric):
    y = {"field": "row", "type": "nominal", "title": None}
    colour = {"field": "measure", "type": "nominal", "title": None, "sort": MEASURES,
              "scale": {"domain": MEASURES, "range": ["#9ecae9", "#4c78a8", "#e45756"]}, "legend": {"orient": "bottom"}}
    bars = {"mark": {"type": "bar", "height": {"band": 1}},
            "encoding": {"y": y, "yOffset": {"field": "measure", "sort": MEASURES},
                         "x": {"field": "percent", "type": "quantitative",
                               "title": "% of throughput (sd of log samples/s; slowdown)"},
                         "color": colour}}
    labels = {"mark": {"type": "text", "align": "left", "dx": 3, "fontSize": 9},
              "encoding": {"y": y, "yOffset": {"field": "measure", "sort": MEASURES},
                           "x": {"field": "percent", "type": "quantitative"},
                           "text": {"field": "percent", "format": ".1f"}}}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": "Noise per scenario (ftbench calibrate)", "anchor": "start",
                  "subtitle": [f"{metric}; min detectable slowdown: caught in 90 % of",
                               f"nights against {d['window']} nights of history (nightly rule)"]},
        "data": {"values": values},
        "facet": {"row": {"field": "panel", "type": "nominal", "title": None,
                          "header": {"labelAngle": 0, "labelAlign": "left", "labelAnchor": "start",
                                     "labelOrient": "top", "labelFontWeight": "bold"}}},
        "spec": {"width": 340, "height": {"step": 12}, "layer": [bars, labels]},
        "resolve": {"scale": {"y": "independent"}},
    }


def main(argv):
    args = argv[1:]
    metric = "train_samples_per_s"
    if "--metric" in args:
        i = args.index("--metric")
        metric = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3 or args[0] != "--out":
        print(__doc__, file=sys.stderr)
        return 2
    values, last = [], None
    for path in args[2:]:
        v, last = values_of(path, metric)
        values += v
    with open(args[1], "w") as f:
        json.dump(spec(values, last, metric), f, indent=1)
        f.write("\n")
    print(args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
