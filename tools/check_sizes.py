#!/usr/bin/env python3
"""Size limits of C++ sources: files and function bodies.

    tools/check_sizes.py [--max-file-lines 500] [--max-function-lines 60] PATH...

PATH is a file or a folder (searched recursively for .h .hpp .cc .cpp .cxx
files). Each violation is one line, sorted by path and line:

    reports/analysis/regress.cpp:1: file is 1234 lines (limit 500)
    reports/analysis/regress.cpp:88: function regress_verdict is 75 lines (limit 60)

Exit code 0 without violations, 1 with any, 2 on bad usage (a missing PATH).
Python 3 standard library only.

How functions are found (a brace-matching scan, not a C++ parser):
1. Comments, string and character literals (raw strings included) and
   preprocessor lines are blanked, character for character, so offsets and
   line numbers stay those of the file.
2. A scan keeps a stack of the open braces' kinds: namespace (also extern
   "C"), class (class/struct/union/enum), function, other (initialisers).
   Only a `{` met at namespace or class scope can open a function: one whose
   head (the text since the last `;`, or since the enclosing scope opened or
   the last scope closed) ends in a parameter list `)` (trailing const,
   noexcept, override, final, &, && and `-> type` allowed), or in a
   constructor's member-initialiser list. Everything inside a function
   (lambdas, local classes) belongs to that function.
3. A function's length is its body's lines, from the line of its `{` to the
   line of its `}`, both counted (a 1-line `{ return x; }` is 1 line).
   Its name is the (qualified) name before the parameter list; a lambda at
   namespace or class scope is named by the variable it initialises.
A file's length is its number of lines (as `wc -l` counts them, plus a last
line without a newline).
"""
import argparse
import os
import re
import sys

SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".cxx")
KEYWORDS_NOT_NAMES = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignas"}


def blank(text: str) -> str:
    """Comments, literals and preprocessor lines as spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def erase(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a directive, with its continuation lines
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            erase(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            erase(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            erase(i, j)
            i = j
        elif c == '"':
            raw = re.search(r'(?:^|[^\w])(?:u8|u|U|L)?R$', text[max(0, i - 3):i])
            if raw:  # R"delim( ... )delim"
                open_paren = text.find("(", i)
                delim = text[i + 1:open_paren]
                j = text.find(")" + delim + '"', open_paren)
                j = n if j < 0 else j + len(delim) + 2
            else:
                j = i + 1
                while j < n and text[j] != '"' and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
                j += 1
            erase(i + 1, j - 1)
            i = j
        elif c == "'":
            k = i - 1
            while k >= 0 and (text[k].isalnum() or text[k] == "_"):
                k -= 1
            if k + 1 < i and text[k + 1].isdigit():  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
            erase(i + 1, j - 1)
            i = j
        else:
            i += 1
    return "".join(out)


TRAILING = [
    re.compile(r"\s*\b(?:const|volatile|noexcept|override|final|try)$"),
    re.compile(r"\s*&&?$"),
    re.compile(r"\s*\bnoexcept\s*\([^()]*\)$"),
    re.compile(r"\s*->\s*[\w:<>,\s*&]+$"),
]


def strip_trailing(head: str) -> str:
    while True:
        for rx in TRAILING:
            m = rx.search(head)
            if m and m.start() < len(head):
                head = head[: m.start()]
                break
        else:
            return head


def matching_open(head: str, close: int) -> int:
    """Index of the '(' that the ')' at `close` closes, -1 if none."""
    depth = 0
    for k in range(close, -1, -1):
        if head[k] == ")":
            depth += 1
        elif head[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def top_level_colon(head: str) -> int:
    """A single ':' outside parentheses and brackets (not '::'), or -1."""
    depth = 0
    for k, c in enumerate(head):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ":" and depth == 0:
            if head[k - 1:k] != ":" and head[k + 1:k + 2] != ":":
                return k
    return -1


def name_before(head: str, paren: int):
    before = head[:paren].rstrip()
    m = re.search(r"operator\s*(?:\(\s*\)|\[\s*\]|[^\w\s(]+|\w[\w\s:<>]*?)$", before)
    if m:
        start = m.start()
        q = re.search(r"(?:[A-Za-z_]\w*\s*::\s*)*$", before[:start])
        return before[q.start() if q else start:].replace(" ", "")
    if before.endswith("]"):  # a lambda: the variable it initialises
        m = re.search(r"([A-Za-z_]\w*)\s*=\s*\[[^\]]*\]$", before)
        return ("lambda " + m.group(1)) if m else "lambda"
    m = re.search(r"~?[A-Za-z_]\w*(?:\s*<[^<>;{}]*>)?(?:\s*::\s*~?[A-Za-z_]\w*(?:\s*<[^<>;{}]*>)?)*$", before)
    if not m:
        return None
    name = re.sub(r"\s+", "", m.group(0))
    return None if name in KEYWORDS_NOT_NAMES else name


def classify(head: str):
    """('namespace'|'class'|'function'|'init'|'other', name) for a '{' after `head`."""
    h = re.sub(r"\s+", " ", head).strip()
    h = re.sub(r"^(?:(?:public|private|protected)\s*:\s*)+", "", h)
    if re.match(r"^(?:inline )?namespace\b", h) or re.match(r'^extern "\s*"$', h):
        return "namespace", None
    body = strip_trailing(h)
    colon = top_level_colon(body)
    if colon >= 0:  # a constructor's initialiser list: Foo::Foo(int a) : a_(a), b_{a}
        sig = strip_trailing(body[:colon].rstrip())
        inits = body[colon + 1:].rstrip()
        if sig.endswith(")"):
            if inits and inits[-1] not in ")}":
                return "init", None  # the `{` of a member's brace initialiser
            return "function", name_before(sig, matching_open(sig, len(sig) - 1))
    if body.endswith(")"):
        paren = matching_open(body, len(body) - 1)
        if paren >= 0:
            name = name_before(body, paren)
            if name:
                return "function", name
    if re.search(r"\b(?:class|struct|union|enum)\b", h):
        return "class", None
    return "other", None


def functions(text: str):
    """(name, line of the name, body lines) of each function body in `text`."""
    code = blank(text)
    line_at = [0] * (len(code) + 1)
    line = 1
    for k, c in enumerate(code):
        line_at[k] = line
        if c == "\n":
            line += 1
    line_at[len(code)] = line
    stack = []  # (kind, offset of '{', name, offset of the name)
    head_start = 0
    parens = 0
    found = []
    for k, c in enumerate(code):
        scope = stack[-1][0] if stack else "namespace"
        if scope == "function" or scope == "other" and any(s[0] == "function" for s in stack):
            if c == "{":
                stack.append(("other", k, None, k))
            elif c == "}":
                kind, opened, name, at = stack.pop()
                if kind == "function":
                    found.append((name, line_at[at], line_at[k] - line_at[opened] + 1))
                    head_start = k + 1
            continue
        if c == "(":
            parens += 1
        elif c == ")":
            parens -= 1
        elif c == ";" and parens == 0:
            head_start = k + 1
        elif c == "{":
            if parens > 0:
                stack.append(("paren", k, None, k))
                continue
            head = code[head_start:k]
            kind, name = classify(head)
            at = k
            if kind == "function":
                m = re.search(re.escape(name.split("::")[-1].replace("lambda ", "")), head) if name else None
                at = head_start + m.start() if m else k
            stack.append((kind, k, name, at))
            if kind in ("namespace", "class", "function"):
                head_start = k + 1
        elif c == "}":
            if not stack:
                continue
            kind, opened, name, at = stack.pop()
            if kind in ("namespace", "class"):
                head_start = k + 1
    return found


def source_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for folder, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SUFFIXES):
                    yield os.path.join(folder, f)


def main() -> int:
    ap = argparse.ArgumentParser(description="files and function bodies over their line limits")
    ap.add_argument("--max-file-lines", type=int, default=500)
    ap.add_argument("--max-function-lines", type=int, default=60)
    ap.add_argument("paths", nargs="+", metavar="PATH")
    args = ap.parse_args()
    for p in args.paths:
        if not os.path.exists(p):
            print(f"check_sizes: {p}: no such file or folder", file=sys.stderr)
            return 2
    violations = []
    for path in source_files(args.paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = len(text.splitlines())
        if lines > args.max_file_lines:
            violations.append((path, 1, f"file is {lines} lines (limit {args.max_file_lines})"))
        for name, line, n in functions(text):
            if n > args.max_function_lines:
                violations.append((path, line, f"function {name} is {n} lines (limit {args.max_function_lines})"))
    for path, line, what in sorted(violations):
        print(f"{path}:{line}: {what}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
