#!/usr/bin/env python3
"""Render the Vega-Lite specs of report folders (DIR/charts/*.vl.json, and
DIR/*.vl.json: `ftbench compare --out DIR`'s compare.vl.json) to SVG and PNG
beside them, all folders in this one process (vl-convert's engine
starts once, ~1-3 s).

  .venv/bin/pip install -r tools/requirements-render.txt   (tools/setup.sh does)
  .venv/bin/python tools/render_charts.py DIR...

ftbench runs this at the end of `ftbench run` and in `ftbench report` (with
the build's .venv python, or $FTB_PYTHON). Every SVG's element ids are
prefixed with its chart's name, so several SVGs inlined into one HTML page
never share an id (Vega names clip paths "clip1", "clip2"... in every chart).

Prints one line per file written. Exit status: 0 all rendered; 1 a chart
failed (the others are still written; stderr names it); 3 vl_convert is not
importable. Files are replaced atomically (temporary file + rename).
"""
import json
import os
import pathlib
import re
import sys

PNG_SCALE = 2  # PNG pixels per SVG unit: sharp on high-DPI screens and in slides
# Vega sizes a chart by the renderer's font; a reader's browser draws the SVG's
# text in its own sans-serif, which may run wider (Chromium's DejaVu Sans:
# legend and title lines up to ~10 px past the edge, tests/page_images_check.py).
# A spec that sets no padding gets this much room on every side.
BROWSER_SLACK_PX = 24


def write_atomic(path: pathlib.Path, data: bytes) -> None:
    """Temporary file + fsync + rename, as ftbench's write_file_atomic: on a
    full disk the previous file stays and no temporary file is left."""
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def prefix_ids(svg: str, prefix: str) -> str:
    """id="x" -> id="PREFIX-x", and every reference to it (url(#x), href="#x")."""
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if not ids:
        return svg
    alt = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    svg = re.sub(r'(\sid=")(' + alt + r')"', lambda m: f'{m.group(1)}{prefix}-{m.group(2)}"', svg)
    svg = re.sub(r"url\(#(" + alt + r")\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    return re.sub(r'(href=")#(' + alt + r')"', lambda m: f'{m.group(1)}#{prefix}-{m.group(2)}"', svg)


def main(dirs: list) -> int:
    try:
        import vl_convert as vlc
    except ImportError as e:
        print(f"render_charts.py: vl_convert is not importable with {sys.executable} ({e}); "
              "install it with: tools/setup.sh", file=sys.stderr)
        return 3
    status = 0
    for d in dirs:
        specs = sorted(pathlib.Path(d, "charts").glob("*.vl.json")) + sorted(pathlib.Path(d).glob("*.vl.json"))
        for spec_path in specs:
            name = spec_path.name[: -len(".vl.json")]
            try:
                spec = json.loads(spec_path.read_text())
                spec.setdefault("padding", BROWSER_SLACK_PX)
                svg = prefix_ids(vlc.vegalite_to_svg(spec), name)
                png = vlc.vegalite_to_png(spec, scale=PNG_SCALE)
            except Exception as e:  # one bad chart must not cost the others
                print(f"render_charts.py: {spec_path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
                      file=sys.stderr)
                status = 1
                continue
            for out, data in ((spec_path.with_name(name + ".svg"), svg.encode()),
                              (spec_path.with_name(name + ".png"), png)):
                try:
                    write_atomic(out, data)
                except OSError as e:  # a full disk: one line naming the file
                    print(f"render_charts.py: {out}: write failed: {e.strerror}", file=sys.stderr)
                    status = 1
                    continue
                print(out)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))
