#!/usr/bin/env python3
"""The pages' charts drawn by Python tools from committed results: writes
each Vega-Lite spec with its tool, then renders the folders with
tools/render_charts.py (SVG, PNG beside each spec).

    tools/page_charts.py            write every spec below, then render them
    tools/page_charts.py --check    write nothing; exit 1 naming each committed
                                    spec that differs from what its tool writes
                                    now (ctest layout.chart_specs_from_results)

Each chart: its spec (the SVG and PNG beside it) and the command that writes it.
(tools/duet_example.sh draws its own, tools/compare_examples.sh renders compare's.)
"""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHARTS = [
    ("results/tutorial-table-2026-12-07/beside-tutorial/tutorial.vl.json",
     ["tools/tutorial_chart.py", "--out", "{out}", "results/tutorial-table-2026-12-07/report.json"]),
    ("results/aa-cpu-2026-12-02/charts/noise.vl.json",
     ["tools/noise_chart.py", "--out", "{out}", "results/aa-cpu-2026-12-01/noise.json",
      "results/aa-cpu-2026-12-02/noise.json"]),
    ("results/nightly-power-2026-12-07/charts/power.vl.json",
     ["tools/power_chart.py", "--out", "{out}", "--duet", "results/duet-example-2026-12-07/power-duet.md",
      "results/nightly-power-2026-12-07/power-aa-cpu-2026-12-02.md", "results/nightly-sim-2026-12-02/power.md"]),
]


def write(spec, argv, out):
    cmd = [sys.executable] + [a.replace("{out}", str(out)) for a in argv]
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def main(argv):
    if "--check" in argv[1:]:
        bad = 0
        with tempfile.TemporaryDirectory() as tmp:
            for i, (spec, cmd) in enumerate(CHARTS):
                out = pathlib.Path(tmp, f"{i}.vl.json")
                write(spec, cmd, out)
                if out.read_bytes() != (ROOT / spec).read_bytes():
                    print(f"{spec}: differs from what `{' '.join(cmd[:2])} ...` writes now (run tools/page_charts.py)")
                    bad = 1
        return bad
    for spec, cmd in CHARTS:
        (ROOT / spec).parent.mkdir(parents=True, exist_ok=True)
        write(spec, cmd, ROOT / spec)
        print(spec)
    # each spec's own folder: render_charts.py renders DIR/charts/*.vl.json and DIR/*.vl.json,
    # so a chart folder is named by its parent when it is a charts/ folder
    dirs = sorted({str((ROOT / s).parent.parent if pathlib.Path(s).parent.name == "charts" else (ROOT / s).parent)
                   for s, _ in CHARTS})
    python = ROOT / ".venv/bin/python"
    return subprocess.run([str(python if python.exists() else sys.executable), str(ROOT / "tools/render_charts.py"),
                           *dirs]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
