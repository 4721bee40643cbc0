#!/usr/bin/env python3
"""README's and docs' links and include paths resolve inside the repository.

    tools/check_links.py [--root DIR]

Scans DIR/README.md and DIR/docs/*.md (DIR: the repository, by default) for
markdown links and images `[text](target)`, reference definitions
`[name]: target`, and `<!-- include: PATH -->` blocks (tools/readme_tables.py;
PATH is relative to DIR, a link to its page's folder). Code spans and fenced
code blocks are left out; so are targets with a scheme (https:, mailto:) and
in-page anchors (#...). A target's #anchor is dropped before it is checked.

One line per bad target, `page:line: link TARGET ...`, for a target that
escapes DIR (`../shared/...`, an absolute path) or does not exist; exit code
1 with any, 0 without, 2 on bad usage. Python 3 standard library only.
"""
import argparse
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
INCLUDE = re.compile(r"<!-- include: (\S+) -->")
CODE_SPAN = re.compile(r"(`+).*?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def pages(root):
    out = [os.path.join(root, "README.md")] if os.path.isfile(os.path.join(root, "README.md")) else []
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        out += [os.path.join(docs, f) for f in sorted(os.listdir(docs)) if f.endswith(".md")]
    return out


def targets(text):
    """(line number, kind, target) of each link and include outside code."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in INCLUDE.finditer(line):
            yield number, "include", m.group(1)
        prose = CODE_SPAN.sub("", line)
        for m in LINK.finditer(prose):
            yield number, "link", m.group(1)
        m = REFERENCE.match(prose)
        if m:
            yield number, "link", m.group(1)


def problem(root, page, kind, target):
    if SCHEME.match(target) or target.startswith("#"):
        return None
    path = target.split("#", 1)[0].split("?", 1)[0]
    if os.path.isabs(path):
        return "is outside the repository"
    base = root if kind == "include" else os.path.dirname(page)
    resolved = os.path.normpath(os.path.join(base, path))
    if os.path.relpath(resolved, root).split(os.sep)[0] == "..":
        return "is outside the repository"
    if not os.path.exists(resolved):
        return ": no such file or folder"
    return None


def main() -> int:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="links and includes of README.md and docs/*.md inside the tree")
    ap.add_argument("--root", default=here, help="the tree (default: this repository)")
    args = ap.parse_args()
    root = os.path.normpath(os.path.abspath(args.root))
    if not os.path.isdir(root):
        print(f"check_links: --root {args.root}: no such folder", file=sys.stderr)
        return 2
    bad = []
    for page in pages(root):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        name = os.path.relpath(page, root)
        for number, kind, target in targets(text):
            why = problem(root, page, kind, target)
            if why:
                sep = "" if why.startswith(":") else " "
                bad.append(f"{name}:{number}: {kind} {target}{sep}{why}")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
