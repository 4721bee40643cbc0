#!/usr/bin/env python3
"""README's result tables are copies of committed files, never typed by hand.

Between `<!-- include: PATH -->` and `<!-- /include -->` README holds the file
PATH (relative to the repository) verbatim. `tools/readme_tables.py` rewrites
those blocks from the files (after `ftbench report results/...` re-rendered
them); `tools/readme_tables.py --check` exits 1 naming each block that
differs (a ctest runs it).
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = root / "README.md"
block = re.compile(r"(<!-- include: (\S+) -->\n)(.*?)(<!-- /include -->)", re.S)


def main() -> int:
    check = "--check" in sys.argv[1:]
    text = readme.read_text()
    stale = []

    def fill(m: re.Match) -> str:
        path = root / m.group(2)
        if not path.is_file():
            stale.append(f"{m.group(2)}: no such file")
            return m.group(0)
        want = path.read_text()
        if m.group(3) != want:
            stale.append(m.group(2))
        return m.group(1) + want + m.group(4)

    new = block.sub(fill, text)
    if check:
        for s in stale:
            print(f"README.md: the block of {s} differs from the file (run tools/readme_tables.py)", file=sys.stderr)
        return 1 if stale else 0
    if new != text:
        readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
