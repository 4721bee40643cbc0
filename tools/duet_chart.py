#!/usr/bin/env python3
"""A chart of A/A duets: per row and mode, each side's throughput pair by
pair (as % from its own geometric mean over the pairs) and the pair's
ratio B / A (as % from 1), against the +-min_effect band. Where the sides
run at once, their luck moves together and the ratio stays flat; taking
turns, it does not. Writes a Vega-Lite spec; tools/render_charts.py renders
it (SVG, PNG) like every other chart.

    tools/duet_chart.py --out DIR/charts/pairs.vl.json DUET.json...
"""
import json
import math
import sys

MODE = {"duet": "both at once", "sequential": "one after the other"}


def rows_of(path):
    with open(path) as f:
        d = json.load(f)
    mode = MODE.get(d["mode"], d["mode"])
    out = []
    for row in [r["scenario"] for r in d["rows"]]:
        pairs = [(p["pair"], p["train_samples_per_s"].get(row)) for p in d["pairs"]]
        pairs = [(k, t) for k, t in pairs if t and t["a"] and t["b"]]
        for side in ("a", "b"):
            g = math.exp(sum(math.log(t[side]) for _, t in pairs) / len(pairs))
            out += [{"mode": mode, "row": row, "pair": k, "series": f"side {side.upper()} (from its mean)",
                     "percent": 100 * (t[side] / g - 1)} for k, t in pairs]
        out += [{"mode": mode, "row": row, "pair": k, "series": "ratio B / A", "percent": 100 * (t["b"] / t["a"] - 1)}
                for k, t in pairs]
    return out, d["design"]["min_effect"]


def spec(values, min_effect):
    m = 100 * min_effect
    layer = [
        # one row a facet cell (aggregate): a band drawn once, not once a datum
        {"transform": [{"aggregate": [{"op": "count", "as": "n"}]}],
         "mark": {"type": "rect", "fill": "#4c78a8", "fillOpacity": 0.15, "strokeOpacity": 0},
         "encoding": {"y": {"datum": -m}, "y2": {"datum": m}}},
        {"transform": [{"aggregate": [{"op": "count", "as": "n"}]}],
         "mark": {"type": "rule", "color": "#555", "strokeDash": [2, 2]}, "encoding": {"y": {"datum": 0}}},
        {"mark": {"type": "line", "point": True},
         "encoding": {
             "x": {"field": "pair", "type": "quantitative", "title": "pair", "axis": {"tickMinStep": 1}},
             "y": {"field": "percent", "type": "quantitative", "title": "% (0: no change)"},
             "color": {"field": "series", "type": "nominal", "title": None,
                       "scale": {"domain": ["side A (from its mean)", "side B (from its mean)", "ratio B / A"],
                                 "range": ["#9ecae9", "#bab0ac", "#e45756"]},
                       "legend": {"orient": "bottom"}},
             "strokeWidth": {"condition": {"test": "datum.series == 'ratio B / A'", "value": 3}, "value": 1.2}}},
    ]
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": "A/A duets: each side's luck, and what is left in the pair's ratio",
                  "subtitle": f"shaded: +-{m:g} %, the change the nightly judges; same build both sides, 1 core each"},
        "data": {"values": values},
        "facet": {"row": {"field": "row", "type": "nominal", "title": None},
                  "column": {"field": "mode", "type": "nominal", "title": None,
                             "sort": ["both at once", "one after the other"]}},
        "spec": {"width": 260, "height": 110, "layer": layer},
        "resolve": {"scale": {"y": "shared"}},
    }


def main(argv):
    if len(argv) < 4 or argv[1] != "--out":
        print(__doc__, file=sys.stderr)
        return 2
    out, files = argv[2], argv[3:]
    values, min_effect = [], 0.03
    for f in files:
        v, min_effect = rows_of(f)
        values += v
    with open(out, "w") as f:
        json.dump(spec(values, min_effect), f, indent=1)
        f.write("\n")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
