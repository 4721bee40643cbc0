#!/usr/bin/env python3
"""The peer's speed against ftbench in committed runs, as their tables say it:
for each run folder, the peer row's `speed-up` and `steady speed-up` cells of
its table.md (re-rendered by `ftbench report`), copied verbatim, no
arithmetic on rounded figures. Markdown on stdout (docs/results.md includes it).
  tools/peer_ratio_table.py RUN_DIR [RUN_DIR ...]"""
import json
import pathlib
import sys


def cells(table: pathlib.Path):
    lines = [l for l in table.read_text().splitlines() if l.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        row = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
        if row.get("scenario", "").startswith("peer"):
            yield row


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write("usage: tools/peer_ratio_table.py RUN_DIR [RUN_DIR ...]\n")
        return 2
    for d in argv[1:]:
        for name in ("table.md", "report.json"):
            if not (pathlib.Path(d) / name).is_file():
                sys.stderr.write(f"tools/peer_ratio_table.py: {pathlib.Path(d) / name}: no such file\n")
                return 2
    print("| run | peer row | repeats | speed-up over baseline (wall time) | steady speed-up over baseline |")
    print("|---|---|--:|--:|--:|")
    for d in argv[1:]:
        table = pathlib.Path(d) / "table.md"
        report = json.loads((pathlib.Path(d) / "report.json").read_text())
        repeats = {r["scenario"]: len(r.get("samples", [])) for r in report["results"]}
        for row in cells(table):
            print(f"| `{d}` | {row['scenario']} | {repeats.get(row['scenario'], '?')} | {row['speed-up']} | "
                  f"{row['steady speed-up']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
