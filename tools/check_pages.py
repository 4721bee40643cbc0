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
- No figure typed beside a results/ citation: outside include blocks, a
  paragraph, a table or a fenced block that names a path under results/
  (`results/NAME...`, `../results/NAME...`) holds no figure anywhere in it: no
  number with a unit (`3.2 %`, `1.10x`, `42 s`, `12 ms`, `6.7 GiB`, `0.29
  TFLOP/s`, `7.75 points`, `2 bytes`, ...), no decimal (`0.97`, `[0.54,
  0.60]`; a version such as `2.11.0`, a `key=0.05` setting and code spans
  are not figures), and in a table no number under a column headed by a unit
  (`seconds`, `s`, `bytes`, `GiB`, `%`, ...). A paragraph ends at a blank
  line, a heading, a list item or a table; a table is its consecutive rows.
  An image's own target is not a citation. Such a figure comes from an
  `<!-- include: FILE -->` of the file that holds it, or is not typed: a
  constant of the method (a 95 % level, a 3 % minimum effect) is stated in a
  paragraph that cites no results/ file.
- No command leaves the clone: in ```sh, ```bash, ```shell and ```console
  blocks outside include blocks (where a block prompts with "$ ", only the
  prompted lines and their continuations are commands; comment lines count,
  as a cron line is one), no path starts with `../`, and an absolute path is
  a user's own choice only under /srv/ (the checkout of the cron recipes),
  /tmp/ (scratch), /data/ (a cluster's data mount), /dev/, /usr/, /etc/,
  /proc/ or /sys/; any other (/work, /home, /root, /mnt, ...) names one
  machine's layout and is refused.

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
RESULTS = re.compile(r"(?<![\w.-])(?:\.\./)*results/\w")
FIGURE = re.compile(r"(?<![\w.-])[-+]?\d+(?:[.,]\d+)*(?:\s?(?:%|points?\b)|x\b|\s?(?:s|ms|us|ns|min|minutes?"
                    r"|seconds?|hours?|h|KiB|MiB|GiB|KB|MB|GB|bytes?|W|MHz|GHz|samples/s|tokens/s|[TG]FLOP/s)(?![\w/]))")
DECIMAL = re.compile(r"(?<![\w.\-/:#=])[-+]?\d+\.\d+(?![\w.\-/:]|\.\d)")
UNIT_HEADER = re.compile(r"^(?:s|ms|us|seconds?|minutes?|bytes?|KiB|MiB|GiB|%|x|samples/s|tokens/s|[TG]FLOP/s)$|\((?:s|ms|bytes|GiB|MiB|%)\)$")
NUMBER = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?$")
CODE_OR_TARGET = re.compile(r"`[^`]*`|(?<=\])\([^)]*\)")
SHELLS = ("sh", "bash", "shell", "console")
OWN_ROOTS = ("/srv/", "/tmp/", "/data/", "/dev/", "/usr/", "/etc/", "/proc/", "/sys/")
IMAGE_TARGET = re.compile(r"!\[[^\]]*\]\([^)]*\)")   # a picture is not a citation of a figure
PATH_START = re.compile(r"(?:^|(?<=[\s=:'\"(]))(\.\./|/[A-Za-z][^\s'\")]*)")


def outside_includes(lines):
    """(line number, line) of each line outside include blocks, the markers left out."""
    included = False
    for n, line in enumerate(lines, 1):
        if INCLUDE_OPEN.search(line):
            included = True
        if "<!-- /include -->" in line:
            included = False
            yield n, ""          # ends a paragraph, like the block it closes
            continue
        if not included:
            yield n, line


def units(lines):
    """Lists of (line number, line): each paragraph, table (its consecutive
    rows) and fenced block (with its language; None for prose, "|" for a
    table) outside include blocks."""
    out, current, fence, kind = [], [], None, None

    def close():
        nonlocal current
        if current:
            out.append((kind, current))
        current = []

    for n, line in outside_includes(lines):
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith("```"):
                kind = fence
                close()
                fence, kind = None, None
            else:
                current.append((n, line))
            continue
        if stripped.startswith("```"):
            close()
            fence = stripped[3:].strip()
            continue
        row = stripped.startswith("|")
        if not stripped or stripped.startswith("#") or ITEM.match(line) or row != (kind == "|"):
            close()
            kind = "|" if row else None
        if stripped.startswith("#"):
            out.append((None, [(n, line)]))
        elif stripped:
            current.append((n, line))
    if fence is not None:
        kind = fence
    close()
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def typed_figures(lines):
    """(line number, figure) of each figure typed in a unit that cites results/."""
    found = []
    for kind, unit in units(lines):
        if not any(RESULTS.search(IMAGE_TARGET.sub("", line)) for _, line in unit):
            continue
        unit_columns = set()
        if kind == "|":
            unit_columns = {i for i, c in enumerate(cells(unit[0][1])) if UNIT_HEADER.search(c)}
        for row, (n, line) in enumerate(unit):
            text = CODE_OR_TARGET.sub("", IMAGE_TARGET.sub("", line)) if kind in (None, "|") else line
            m = FIGURE.search(text) or DECIMAL.search(text)
            if m:
                found.append((n, m.group(0).strip()))
            elif row > 1 and unit_columns:
                hit = [c for i, c in enumerate(cells(line)) if i in unit_columns and NUMBER.match(c)]
                if hit:
                    found.append((n, hit[0]))
    return found


def commands(lines):
    """(line number, line) of each command line in shell blocks outside include blocks."""
    out = []
    for fence, unit in units(lines):
        if fence not in SHELLS:
            continue
        prompted = any(line.lstrip().startswith("$ ") for _, line in unit)
        going = False
        for n, line in unit:
            is_command = not prompted or line.lstrip().startswith("$ ") or going
            going = is_command and line.rstrip().endswith("\\")
            if is_command:
                out.append((n, line))
    return out


def outside_paths(lines):
    """(line number, path) of each command path that leaves the clone."""
    found = []
    for n, line in commands(lines):
        for m in PATH_START.finditer(line):
            path = m.group(1)
            if path == "../" or not path.startswith(OWN_ROOTS):
                found.append((n, path if path != "../" else line[m.start():].split()[0]))
    return found


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
        lines = page.read_text().splitlines()
        for n, figure in typed_figures(lines):
            problems.append(f"{page.relative_to(root)}:{n}: a figure typed beside a results/ citation ({figure}): include the file that holds it")
        for n, path in outside_paths(lines):
            problems.append(f"{page.relative_to(root)}:{n}: a command path outside the clone ({path})")
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
