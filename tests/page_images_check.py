#!/usr/bin/env python3
"""The pictures of README and docs/ as a reader's browser shows them.

For each page (README.md, docs/*.md) with images (`![alt](path)`), a probe
page is written holding each image twice: as an <img> (does it load: a
decoded width and height) and, for an SVG, inlined (is any label clipped:
every <text>'s box inside its SVG's box, a pixel of slack). Chromium
(headless, offline) opens each probe and the check reads what it found.

    tests/page_images_check.py ROOT

Exit 0: every image loads and no label is clipped; 1: the failures, one per
line (page, image, what); 77: no chromium here (ctest: skipped, with the
reason). Seconds: one browser start per page.
"""
import html
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
SLACK_PX = 1.0

PROBE = """<script>
window.addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('img').forEach(img => {
    out.push((img.complete && img.naturalWidth > 0 && img.naturalHeight > 0 ? 'loaded ' : 'broken ') + img.dataset.name);
  });
  document.querySelectorAll('div.inline').forEach(div => {
    const svg = div.querySelector('svg');
    if (!svg) { out.push('nosvg ' + div.dataset.name); return; }
    const box = svg.getBoundingClientRect();
    let clipped = 0, texts = 0, first = '';
    svg.querySelectorAll('text').forEach(t => {
      if (!t.textContent.trim()) return;
      texts++;
      const b = t.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) return;
      if (b.left < box.left - %(slack)s || b.right > box.right + %(slack)s ||
          b.top < box.top - %(slack)s || b.bottom > box.bottom + %(slack)s) {
        clipped++;
        const over = Math.max(box.left - b.left, b.right - box.right, box.top - b.top, b.bottom - box.bottom);
        if (!first) first = t.textContent.trim().slice(0, 60) + ' (' + over.toFixed(1) + ' px out)';
      }
    });
    out.push('labels ' + div.dataset.name + ' ' + texts + ' ' + clipped + ' ' + encodeURIComponent(first));
  });
  document.body.setAttribute('data-probe', out.join('|'));
});
</script>""" % {"slack": SLACK_PX}


def images(page):
    """(line, alt, resolved path) of each image outside fenced blocks."""
    fenced = False
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            for m in IMAGE.finditer(line):
                yield n, m.group(1), (page.parent / m.group(2)).resolve()


def probe_page(entries, out):
    parts = ["<!doctype html><html><head><meta charset='utf-8'></head><body>"]
    for i, (_, _, path) in enumerate(entries):
        name = f"{i}"
        parts.append(f"<img data-name='{name}' src='{html.escape(path.as_uri())}'>")
        if path.suffix == ".svg" and path.is_file():
            parts.append(f"<div class='inline' data-name='{name}'>{path.read_text(encoding='utf-8')}</div>")
    parts.append(PROBE + "</body></html>")
    out.write_text("\n".join(parts), encoding="utf-8")


def browse(chromium, page, profile):
    r = subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                        f"--user-data-dir={profile}", "--allow-file-access-from-files",
                        "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'data-probe="([^"]*)"', r.stdout)
    return html.unescape(m.group(1)).split("|") if m else None


def main():
    if len(sys.argv) != 2:
        print("usage: tests/page_images_check.py ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("skipped: no chromium (tools/setup.sh --tests installs it)")
        return 77
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    problems, checked, labels = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for page in pages:
            entries = list(images(page))
            if not entries:
                continue
            where = page.relative_to(root)
            for n, _, path in entries:
                if not path.is_file():
                    problems.append(f"{where}:{n}: {path}: no such file")
            probe = tmp / (page.stem + ".html")
            probe_page(entries, probe)
            found = browse(chromium, probe, tmp / "profile")
            if found is None:
                problems.append(f"{where}: chromium did not run the probe")
                continue
            for item in found:
                kind, name, *rest = item.split(" ")
                n, _, path = entries[int(name)]
                label = f"{where}:{n}: {path.relative_to(root) if root in path.parents else path}"
                if kind == "broken":
                    problems.append(f"{label}: does not load")
                elif kind == "loaded":
                    checked += 1
                elif kind == "labels":
                    texts, clipped, first = int(rest[0]), int(rest[1]), rest[2]
                    labels += texts
                    if clipped:
                        from urllib.parse import unquote
                        problems.append(f"{label}: {clipped} of {texts} labels outside the picture "
                                        f"(first: '{unquote(first)}')")
    for p in problems:
        print(p)
    print(f"page_images: {checked} images loaded, {labels} labels inside their pictures, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
