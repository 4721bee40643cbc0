#!/usr/bin/env python3
"""What a reader of the pages can rely on, checked (ctest layout.pages).

    tools/check_pages.py [ROOT]

- No page (README.md, docs/*.md) speaks of the project's own issues
  ("issue 36") or of its past ("used to", "no longer", "once did", "moved
  from", "since then", "now defaults"): a reader has no such history; what
  changed belongs in the commit log. Included blocks (committed files) are
  not read.
- docs/nightly.md starts with what to run: a fenced sh block opens within its
  first 40 lines.
- No list item of docs/nightly.md runs over 150 words (a list item is a line
  starting "- " or "N. " and the indented lines that follow it; fenced code
  and include blocks are not counted).

One line per violation (path:line: what), exit 1 with any, 0 without.
Python 3 standard library only.
"""
import pathlib
import re
import sys

ISSUE = re.compile(r"\bissues? \d+|\bthe issue's\b", re.I)
ITEM = re.compile(r"^(\s*)(- |\d+\. )")
PAST = re.compile(r"\b(used to (?:hide|be|say|call|print|read)|no longer|once did|moved from|since then|now defaults|predates)\b",
                  re.I)
INCLUDE_OPEN = re.compile(r"<!-- include: \S+ -->")


def list_items(lines):
    """(first line number, words) of each list item outside fenced blocks."""
    items, current, fenced = [], None, False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = ITEM.match(line)
        if m:
            if current:
                items.append(current)
            current = [n, len(m.group(1)), len(line[m.end():].split())]
        elif current and line.strip() and (line.startswith(" ") or line.startswith("\t")):
            current[2] += len(line.split())
        elif current and (not line.strip() or not line.startswith(" ")):
            items.append(current)
            current = None
    if current:
        items.append(current)
    return [(n, words) for n, _, words in items]


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        included = False
        for n, line in enumerate(page.read_text().splitlines(), 1):
            if INCLUDE_OPEN.search(line):
                included = True
            if "<!-- /include -->" in line:
                included = False
            if included:
                continue
            if ISSUE.search(line):
                problems.append(f"{page.relative_to(root)}:{n}: speaks of an issue ({ISSUE.search(line).group(0)})")
            if PAST.search(line):
                problems.append(f"{page.relative_to(root)}:{n}: speaks of the project's past ({PAST.search(line).group(0)})")
    nightly = root / "docs" / "nightly.md"
    lines = nightly.read_text().splitlines()
    if not any(l.strip() in ("```sh", "```bash") for l in lines[:40]):
        problems.append("docs/nightly.md:1: no sh block in its first 40 lines (the recipe first)")
    for n, words in list_items(lines):
        if words > 150:
            problems.append(f"docs/nightly.md:{n}: a list item of {words} words (at most 150)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
