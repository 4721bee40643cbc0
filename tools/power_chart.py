#!/usr/bin/env python3
"""A chart of what the nightly rule catches: the slowdown of one scenario
(x) against the share of nights that call it regressed (y), one line per
curve `ftbench power` printed, the 90 % line, and the duet designs'
minimum detectable slowdowns (90 %) as points on it. Writes a Vega-Lite
spec; tools/render_charts.py renders it (SVG, PNG).

Reads Markdown, since `ftbench power` writes no JSON:
- POWER.md: `ftbench power`'s output (fenced or not). Either its table
  "slowdown of one scenario | caught | ..." (one curve: the simulated noise
  it states) or, from `ftbench power --noise noise.json --slowdowns ...`,
  "scenario slowed | within | between | caught at X % ..." (one curve per
  scenario, each at its calibrated noise).
- --duet POWER-DUET.md: `ftbench power --duet`'s table; its "duet: ROW" and
  "sequential: ROW" lines (measured pair sds) give one point each at 90 %.

    tools/power_chart.py --out FILE.vl.json [--duet POWER-DUET.md] POWER.md...
"""
import json
import re
import sys

PCT = re.compile(r"(-?[\d.]+) %")
MODE = {"duet": "both at once", "sequential": "one after the other"}  # as tools/duet_chart.py


def table_rows(text):
    """The first Markdown table of text: its header cells, then each row's."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows


def pct(cell):
    return float(PCT.search(cell).group(1))


def machine_of(text):
    """' (AMD EPYC)': the machine of the noise.json the output names, if it is here."""
    m = re.search(r"each scenario's noise from (\S+\.json)", text)
    try:
        with open(m.group(1)) as f:
            return " (" + json.load(f)["machine"].split(" | ")[-1] + ")"
    except (AttributeError, OSError, KeyError, ValueError):
        return ""


def nights_of(path):
    return re.search(r"(\d+) nights of history", open(path).read()).group(1)


def curves_of(path):
    text = open(path).read()
    rows = table_rows(text)
    head, body = rows[0], rows[1:]
    if head[0] == "slowdown of one scenario":
        m = re.search(r"within a run ([\d.]+) % a repeat, between nights ([\d.]+) %", text)
        n = re.search(r"(\d+) scenario\(s\) a report, (\d+) nights of history", text)
        name = f"every row: {float(m.group(1)):.1f} % within, {float(m.group(2)):.1f} % between (default)"
        if n:
            name += f", {n.group(1)} rows"
        return [{"curve": name, "slowdown": pct(r[0]), "caught": pct(r[1])} for r in body]
    if head[0] == "scenario slowed":
        at = [pct(h) for h in head[3:]]
        out = []
        for r in body:
            name = f"{r[0]}: {pct(r[1]):.1f} % within, {pct(r[2]):.1f} % between{machine_of(text)}"
            out += [{"curve": name, "slowdown": 0.0, "caught": 0.0}]
            out += [{"curve": out[-1]["curve"], "slowdown": s, "caught": pct(c)} for s, c in zip(at, r[3:])]
        return out
    raise SystemExit(f"power_chart.py: {path}: no `ftbench power` table (first header cell {head[0]!r})")


def duet_points(path):
    out = []
    for r in table_rows(open(path).read())[1:]:
        design = r[0].split(":")[0]
        if design in ("duet", "sequential") and r[1] == "measured":
            out.append({"design": f"duet job, {MODE[design]} (measured)", "row": r[0].split(": ")[1],
                        "slowdown": pct(r[-1]), "caught": 90.0})
    return out


def spec(curves, points, nights):
    # symlog: the duet's few-% points and a noisy row's 80 % both readable, 0 kept
    top = max(v["slowdown"] for v in curves + points)
    x = {"field": "slowdown", "type": "quantitative", "title": "slowdown of one scenario (%, symlog scale)",
         "scale": {"type": "symlog", "constant": 2, "domain": [0, top], "nice": False},
         "axis": {"values": [t for t in (0, 1, 2, 3, 5, 10, 15, 20, 30, 50, 80) if t <= top]}}
    y = {"field": "caught", "type": "quantitative", "title": "nights that call it regressed (%)",
         "scale": {"domain": [0, 100]}}
    layer = [
        {"mark": {"type": "rule", "color": "#555", "strokeDash": [4, 4]}, "encoding": {"y": {"datum": 90}}},
        {"mark": {"type": "text", "align": "left", "baseline": "top", "dx": 4, "dy": 3, "fontSize": 10, "color": "#555"},
         "encoding": {"y": {"datum": 90}, "x": {"value": 0}, "text": {"value": "90 % caught"}}},
        {"data": {"values": curves}, "mark": {"type": "line", "point": True},
         "encoding": {"x": x, "y": y, "color": {"field": "curve", "type": "nominal", "title": "the slowed row and its noise",
                                                "sort": list(dict.fromkeys(v["curve"] for v in curves)),
                                                "legend": {"orient": "bottom", "direction": "vertical",
                                                           "labelLimit": 0}}}},
    ]
    if points:
        layer.append({"data": {"values": points}, "mark": {"type": "point", "size": 60, "strokeWidth": 2},
                      "encoding": {"x": x, "y": y, "shape": {"field": "design", "type": "nominal", "title": None,
                                                             "legend": {"orient": "bottom", "direction": "vertical",
                                                                        "labelLimit": 0}},
                                   "color": {"value": "#222"}, "tooltip": [{"field": "row"}]}})
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": "What the nightly rule catches (ftbench power)", "anchor": "start",
                  "subtitle": [f"one row slowed, judged against {nights} history nights;",
                               "points: a duet job's 90 % slowdown at its measured noise"] if points else
                  [f"one row slowed, judged against {nights} history nights"]},
        "data": {"values": [{}]},  # the 90 % line's one datum; the curves bring their own
        "width": 440, "height": 260,
        # the two legends one under the other, not side by side past the plot
        "config": {"legend": {"layout": {"bottom": {"anchor": "start", "direction": "vertical", "margin": 6}}}},
        "layer": layer,
    }


def main(argv):
    args = argv[1:]
    duet = None
    if "--duet" in args:
        i = args.index("--duet")
        duet = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3 or args[0] != "--out":
        print(__doc__, file=sys.stderr)
        return 2
    curves = [v for path in args[2:] for v in curves_of(path)]
    points = duet_points(duet) if duet else []
    with open(args[1], "w") as f:
        nights = " or ".join(sorted({nights_of(path) for path in args[2:]}, key=int))
        json.dump(spec(curves, points, nights), f, indent=1)
        f.write("\n")
    print(args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
