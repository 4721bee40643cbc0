#!/usr/bin/env bash
# `ftbench report`: re-rendering committed reports, bad input, no renderer, several reports, the offline page.
#   tests/cli/report.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  report_reproduces_table)
    # Re-rendering a committed report gives its table.md byte for byte, and
    # the charts as specs, SVG and PNG, and index.html.
    committed="$fixtures/../../results/cpu-smoke-2026-11-30"
    mkdir -p "$tmp/r"; cp "$committed/report.json" "$committed/steps.csv" "$tmp/r/"
    "$ftbench" report "$tmp/r" >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(tail -3 "$tmp/err")"
    cmp "$tmp/r/table.md" "$committed/table.md" || fail "table.md differs from $committed/table.md: $(diff "$committed/table.md" "$tmp/r/table.md" | head -5)"
    [ "$(cat "$tmp/out")" = "$tmp/r/index.html" ] || fail "stdout is not the page's path: $(cat "$tmp/out")"
    ! grep -q "not rendered" "$tmp/err" || fail "the renderer did not run: $(cat "$tmp/err")"
    for c in speedup wall_time throughput test_accuracy epochs loss step_time; do
      for ext in vl.json svg png; do [ -s "$tmp/r/charts/$c.$ext" ] || fail "missing charts/$c.$ext"; done
    done
    [ "$(grep -c '<figure class="chart"' "$tmp/r/index.html")" = 7 ] || fail "index.html does not hold 7 charts"
    [ "$(grep -c '<svg' "$tmp/r/index.html")" -ge 7 ] || fail "index.html does not inline the SVGs" ;;
  report_bad_input)
    mkdir -p "$tmp/empty" "$tmp/o"
    expect_error 2 "$tmp/nope.json" "$ftbench" report "$tmp/nope.json" --out "$tmp/o"
    echo '{"schema": "something/else"}' >"$tmp/other.json"
    expect_error 2 "$tmp/other.json: schema: 'something/else' is not a report version" "$ftbench" report "$tmp/other.json" --out "$tmp/o"
    echo 'not json' >"$tmp/text.json"
    expect_error 2 "$tmp/text.json: not valid JSON" "$ftbench" report "$tmp/text.json" --out "$tmp/o"
    expect_error 2 "$tmp/empty/report.json: no report.json in this folder" "$ftbench" report "$tmp/empty" --out "$tmp/o"
    # A bad report among good ones: nothing is written.
    expect_error 2 "$tmp/text.json" "$ftbench" report "$fixtures/../../results/cpu-smoke-2026-11-30" "$tmp/text.json" --out "$tmp/o"
    [ -z "$(ls -A "$tmp/o")" ] || fail "wrote files after bad input: $(ls "$tmp/o")"
    expect_error 2 "reports is required" "$ftbench" report ;;
  report_without_renderer)
    # No renderer: specs, table and page are still written, exit 0, and the
    # reason is said once on stderr and once in index.html.
    cp "$fixtures/../../results/cpu-smoke-2026-11-30/report.json" "$tmp/report.json"
    FTB_PYTHON=/nonexistent "$ftbench" report "$tmp/report.json" --out "$tmp/o" >"$tmp/out" 2>"$tmp/err" ||
      fail "exit $? without a renderer: $(cat "$tmp/err")"
    [ "$(grep -c 'not rendered' "$tmp/err")" = 1 ] || fail "want one 'not rendered' line on stderr: $(cat "$tmp/err")"
    grep -q '/nonexistent' "$tmp/err" || fail "stderr does not say why: $(cat "$tmp/err")"
    for f in table.md index.html charts/speedup.vl.json charts/loss.vl.json; do [ -s "$tmp/o/$f" ] || fail "missing $f"; done
    [ ! -e "$tmp/o/charts/speedup.svg" ] || fail "an SVG without a renderer"
    [ "$(grep -c 'Charts not rendered to SVG/PNG: no python at /nonexistent' "$tmp/o/index.html")" = 1 ] ||
      fail "index.html does not say once why the charts are missing" ;;
  report_several)
    # Two reports: a set each, and the machine comparison above them.
    results="$fixtures/../../results"
    "$ftbench" report "$results/cpu-smoke-2026-11-30" "$results/gpu-2026-11-29/full/report.json" --out "$tmp/c" \
      >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(tail -3 "$tmp/err")"
    for f in index.html charts/machines.vl.json charts/machines.svg charts/machines.png \
             1-cpu-smoke-2026-11-30/index.html 1-cpu-smoke-2026-11-30/table.md 2-full/index.html 2-full/charts/speedup.svg; do
      [ -s "$tmp/c/$f" ] || fail "missing $f"
    done
    python3 - "$tmp/c/charts/machines.vl.json" "$tmp/c/index.html" <<'PY' || fail "the comparison is wrong"
import json, sys
spec = json.load(open(sys.argv[1]))
machines = {v["machine"] for v in spec["data"]["values"]}
assert machines == {"AMD EPYC, 2 cores (2026-11-30)", "NVIDIA H200 (2026-11-29)"}, machines
page = open(sys.argv[2]).read()
assert 'href="1-cpu-smoke-2026-11-30/index.html"' in page and 'href="2-full/index.html"' in page
PY
    ;;
  report_page_opens_offline)
    # index.html in headless Chromium: no console message at all (a blocked
    # fetch, a CSP violation or a script error would log one), and every
    # chart drawn as an SVG of non-zero size. Needs chromium (tools/setup.sh --tests).
    chromium="$(command -v chromium || command -v chromium-browser)" || fail "no chromium: run tools/setup.sh --tests"
    cp "$fixtures/../../results/cpu-smoke-2026-11-30/report.json" "$fixtures/../../results/cpu-smoke-2026-11-30/steps.csv" "$tmp/"
    "$ftbench" report "$tmp/report.json" --out "$tmp/o" >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(cat "$tmp/err")"
    browse() {  # browse PAGE: the DOM after load on stdout, Chromium's log in $tmp/console
      timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$tmp/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$1" 2>"$tmp/console"
    }
    browse "$tmp/o/index.html" >"$tmp/dom.html" || fail "chromium failed: $(tail -3 "$tmp/console")"
    grep -q 'data-chart="speedup"' "$tmp/dom.html" || fail "chromium did not load the page: $(tail -3 "$tmp/console")"
    ! grep -E ':CONSOLE[:(]' "$tmp/console" || fail "console messages on the page"
    # The same page plus a probe (allowed by the page's CSP in this copy only):
    # each chart's drawn size, and any resource the page fetched.
    python3 - "$tmp/o/index.html" "$tmp/o/probe.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
probe = """<script>window.addEventListener('load', () => {
  const sizes = [...document.querySelectorAll('figure.chart')].map(f => {
    const svg = f.querySelector('svg'); if (!svg) return f.dataset.chart + '=none';
    const b = svg.getBoundingClientRect(); return f.dataset.chart + '=' + Math.round(b.width) + 'x' + Math.round(b.height); });
  document.body.setAttribute('data-probe-sizes', sizes.join(' '));
  document.body.setAttribute('data-probe-fetched', performance.getEntriesByType('resource').map(e => e.name).join(' '));
});</script>"""
assert "default-src 'none';" in page
page = page.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';")
open(sys.argv[2], "w").write(page.replace("</body>", probe + "</body>"))
PY
    browse "$tmp/o/probe.html" >"$tmp/probe-dom.html" || fail "chromium failed on the probe: $(tail -3 "$tmp/console")"
    ! grep -E ':CONSOLE[:(]' "$tmp/console" || fail "console messages on the probed page"
    python3 - "$tmp/probe-dom.html" <<'PY' || fail "a chart is not drawn, or the page fetched something"
import re, sys
dom = open(sys.argv[1]).read()
sizes = re.search(r'data-probe-sizes="([^"]*)"', dom).group(1).split()
fetched = re.search(r'data-probe-fetched="([^"]*)"', dom).group(1)
print("charts:", " ".join(sizes))
assert len(sizes) == 7, sizes
for s in sizes:
    name, wh = s.split("=")
    assert wh != "none", name
    w, h = map(int, wh.split("x"))
    assert w > 100 and h > 100, s
assert fetched == "", fetched
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
