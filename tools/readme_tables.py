#!/usr/bin/env python3
"""README's and docs' result tables are copies of committed files, never typed by hand.

Between `<!-- include: PATH -->` and `<!-- /include -->` README.md and every
docs/*.md hold the file PATH (relative to the repository) verbatim.
`tools/readme_tables.py` rewrites those blocks from the files (after
`ftbench report results/...` re-rendered them, or a command wrote them);
`tools/readme_tables.py --check` exits 1 naming each block that differs (a
ctest runs it). A file that is not Markdown (a job script, say) is held as a
fenced code block (```bash for .sh and .sbatch), so the page shows the file
the tests run.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
fences = {".sh": "bash", ".sbatch": "bash", ".py": "python", ".json": "json"}
block = re.compile(r"(<!-- include: (\S+) -->\n)(.*?)(<!-- /include -->)", re.S)


def pages():
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for page in pages():
        text = page.read_text()
        name = page.relative_to(root)

        def fill(m: re.Match) -> str:
            path = root / m.group(2)
            if not path.is_file():
                stale.append(f"{name}: the block of {m.group(2)}: no such file")
                return m.group(0)
            want = path.read_text()
            if path.suffix != ".md":
                want = f"```{fences.get(path.suffix, '')}\n{want}```\n"
            if m.group(3) != want:
                stale.append(f"{name}: the block of {m.group(2)} differs from the file (run tools/readme_tables.py)")
            return m.group(1) + want + m.group(4)

        new = block.sub(fill, text)
        if not check and new != text:
            page.write_text(new)
    if check:
        for s in stale:
            print(s, file=sys.stderr)
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
