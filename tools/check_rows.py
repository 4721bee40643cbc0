#!/usr/bin/env python3
"""Every row a doc or tool names is one the registry has (issue 41).

The registry (`ftbench list`: each row's name and aliases) is the one list of
rows; README, docs/ and tools/ name rows only as examples or subsets. This
check finds the names they give and fails on any the binary does not know, so
a renamed or removed row cannot go stale in a page or a GPU script that only
runs on a machine with a GPU. A new row needs no edit here.

    tools/check_rows.py FTBENCH ROOT

Where names are read:
  - every `--scenarios a,b,c` (and `SCENARIOS:-a,b` defaults) in README.md,
    docs/*.md and tools/*.sh, and `rows=a,b` assignments in tools/*.sh;
  - the backticked names of docs/reference.md's section "ftbench's rows for
    the tutorial's steps" (`peer*` is a prefix: some row must start with it).
Exit 0: all known; 1: unknown names, each with its file and line.
"""
import pathlib
import re
import subprocess
import sys

NAME_COLUMN = 30  # `ftbench list`'s first column: the row and its aliases
LIST = re.compile(r"(?:--scenarios[ =]\"?|SCENARIOS:-|rows=)([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)+|[a-z][A-Za-z0-9_]*)")
SECTION = "## ftbench's rows for the tutorial's steps"


def registered(ftbench):
    out = subprocess.run([ftbench, "list"], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines()[2:]:
        first = line[:NAME_COLUMN]
        names.update(w for w in re.findall(r"[A-Za-z0-9_]+", first) if w not in ("alias", "aliases"))
    return names


def named_in_lists(root):
    files = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "tools").glob("*.sh"))]
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in LIST.finditer(line):
                for name in m.group(1).split(","):
                    if name not in ("N", "a", "b"):  # the help's placeholders
                        yield path, number, name


def named_in_reference(root):
    path = root / "docs" / "reference.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    inside = False
    for number, line in enumerate(lines, 1):
        if line.startswith("## "):
            inside = line.strip() == SECTION
        if not inside:
            continue
        for token in re.findall(r"`([^`]+)`", line):
            if " " in token:  # a command (`ftbench list`), not a name
                continue
            for part in token.split("/"):
                part = part.strip()
                if re.fullmatch(r"_?[a-z][a-z0-9_]*\*?", part):
                    yield path, number, part


def main():
    if len(sys.argv) != 3:
        print("usage: tools/check_rows.py FTBENCH ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[2])
    if not (root / "docs" / "reference.md").is_file():
        print(f"check_rows: {root}: no docs/reference.md (not a checkout of ftbench)", file=sys.stderr)
        return 2
    try:
        rows = registered(sys.argv[1])
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"check_rows: {sys.argv[1]}: cannot run `list`: {e}", file=sys.stderr)
        return 2
    bad, seen = [], 0
    for path, number, name in [*named_in_lists(root), *named_in_reference(root)]:
        seen += 1
        if name.startswith("_"):  # "cuda_graph_bf16/_fp16": a suffix of the name before it
            continue
        known = any(r.startswith(name[:-1]) for r in rows) if name.endswith("*") else name in rows
        if not known:
            bad.append(f"{path.relative_to(root)}:{number}: '{name}' is not a row of `ftbench list`")
    for b in bad:
        print(b)
    print(f"check_rows: {seen} row names in docs and tools, {len(bad)} unknown")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
