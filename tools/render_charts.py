#!/usr/bin/env python3
"""Render a run's Vega-Lite specs (DIR/charts/*.vl.json) to SVG beside them.

  .venv/bin/pip install vl-convert-python
  .venv/bin/python tools/render_charts.py out/<run>
"""
import pathlib
import sys

import vl_convert as vlc


def main(run_dir: str) -> None:
    for spec in sorted(pathlib.Path(run_dir, "charts").glob("*.vl.json")):
        svg = spec.with_suffix("").with_suffix(".svg")
        svg.write_text(vlc.vegalite_to_svg(spec.read_text()))
        print(svg)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
