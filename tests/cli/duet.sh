#!/usr/bin/env bash
# `ftbench duet`: two sides at once on their own cores, judged pair by pair
# (bench/cmd_duet.cpp, reports/analysis/duet.h).
#   tests/cli/duet.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
run=(--preset quick --scenarios baseline,fused_adam "${tiny[@]}" max_steps=30)

case "$case_name" in
  duet_pairs_swap_and_judge)
    # Two looks of 2 and 3 pairs: both sides' reports for every pair, the cores
    # swapped on even pairs, every row judged (a verdict, the pairs, the interval).
    cpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
    [ "$cpus" -ge 2 ] || skip "needs 2 cores, this process may use $cpus"
    # Two executables: a copy stands for the kept reference build.
    cp "$ftbench" "$tmp/reference-ftbench"
    "$ftbench" duet --out "$tmp/d" --a "$tmp/reference-ftbench" --looks 2,3 "${run[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "duet: exit $rc: $(tail -3 "$tmp/err")"
    for k in 1 2; do for s in a b; do
      [ -s "$tmp/d/pair-$k/$s/report.json" ] || fail "no report of side $s in pair $k"
    done; done
    python3 - "$tmp/d/duet.json" <<'PY' || fail "duet.json: $(cat "$tmp/d/duet.json" | head -40)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "duet" and d["metric"] == "train_samples_per_s"
p = d["pairs"]
assert len(p) >= 2 and d["judged_at_pairs"] == len(p)
assert p[0]["a"]["cores"] == p[1]["b"]["cores"] and p[0]["b"]["cores"] == p[1]["a"]["cores"], "no swap"
assert set(p[0]["a"]["cores"]).isdisjoint(p[0]["b"]["cores"]), "sides share a core"
assert all(x["together"] for x in p)
assert d["rotate_s"] == 0.25 and all(x["rotations"] >= 1 for x in p), "the default: trades every quarter second"
assert "threads=1" in d["sides"]["a"]["args"]
assert d["sides"]["a"]["executable"].endswith("reference-ftbench"), d["sides"]["a"]
rows = {r["scenario"]: r for r in d["rows"]}
assert set(rows) == {"baseline", "fused_adam"}, rows.keys()
for r in rows.values():
    assert r["verdict"] in ("same", "regressed", "improved", "cannot tell"), r
    # A row settled at an earlier look keeps that look's verdict and pairs.
    assert r["pairs"] == (r["settled_at"] or len(p)) and r["pairs"] in (2, len(p)), r
    assert r["change"]["low"] <= r["change"]["estimate"] <= r["change"]["high"], r
for x in p:
    for row, t in x["train_samples_per_s"].items():
        assert t["a"] > 0 and t["b"] > 0 and abs(t["log_ratio"] - (__import__("math").log(t["b"] / t["a"]))) < 1e-9
PY
    grep -q '^| baseline ' "$tmp/out" || fail "no table on stdout: $(cat "$tmp/out")"
    [ -s "$tmp/d/duet.md" ] || fail "no duet.md"
    # Judged again from duet.json alone: the job's own table, byte for byte;
    # with another min effect, that design's verdicts.
    "$ftbench" duet --rejudge "$tmp/d/duet.json" >"$tmp/re" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "--rejudge: exit $rc: $(cat "$tmp/err")"
    cmp -s "$tmp/re" "$tmp/out" || fail "--rejudge differs from the job: $(diff "$tmp/out" "$tmp/re" | head)"
    cmp -s "$tmp/d/duet.md" "$tmp/out" || fail "duet.md differs from stdout"
    "$ftbench" duet --rejudge "$tmp/d/duet.json" --min-effect 0.5 >"$tmp/re50" 2>/dev/null
    grep -q 'beyond +-50 %' "$tmp/re50" || fail "--min-effect not applied: $(cat "$tmp/re50")"
    expect_error 2 "missing.json" "$ftbench" duet --rejudge "$tmp/missing.json" ;;
  duet_sequential)
    # One side after the other on the same core, alternating which goes first.
    "$ftbench" duet --out "$tmp/d" --sequential --looks 2 "${run[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "duet --sequential: exit $rc: $(tail -3 "$tmp/err")"
    python3 - "$tmp/d/duet.json" <<'PY' || fail "duet.json: $(head -40 "$tmp/d/duet.json")"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pairs"]
assert d["mode"] == "sequential" and len(p) == 2
assert [x["first"] for x in p] == ["a", "b"] and not any(x["together"] for x in p)
assert p[0]["a"]["cores"] == p[0]["b"]["cores"]
assert d["rotate_s"] == 0 and all(x["rotations"] == 0 for x in p), "one side at a time trades nothing"
PY
    ;;
  duet_rotates_cores)
    # --rotate-s: the sides trade cores while both run (every thread of each
    # side re-pinned). Two stand-in sides that record the cores they may use
    # ten times a second for two seconds: each sees both cores, never the
    # other's at the same moment, and duet.json counts the trades.
    cpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
    [ "$cpus" -ge 2 ] || skip "needs 2 cores, this process may use $cpus"
    cat >"$tmp/side" <<'SH'
#!/usr/bin/env bash
# side run --out DIR ...: its cores over time in DIR.cores, then no report (exit 3).
out=$3
for i in $(seq 20); do sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status >>"$out.cores"; sleep 0.1; done
exit 3
SH
    chmod +x "$tmp/side"
    "$ftbench" duet --out "$tmp/d" --a "$tmp/side" --b "$tmp/side" --rotate-s 0.25 --looks 2 "${run[@]}" \
      >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "duet with failing sides: exit $rc (1 expected): $(tail -3 "$tmp/err")"
    python3 - "$tmp/d" <<'PY' || fail "cores: a $(tr '\n' ' ' <"$tmp/d/pair-1/a.cores"), b $(tr '\n' ' ' <"$tmp/d/pair-1/b.cores")"
import json, sys
d = sys.argv[1]
j = json.load(open(f"{d}/duet.json"))
assert j["rotate_s"] == 0.25, j["rotate_s"]
p = j["pairs"][0]
assert p["rotations"] >= 3, p["rotations"]
a = open(f"{d}/pair-1/a.cores").read().split()
b = open(f"{d}/pair-1/b.cores").read().split()
assert len(set(a)) == 2 and len(set(b)) == 2, (a, b)  # each side on both cores over the pair
assert a[0] == ",".join(map(str, p["a"]["cores"])) and b[0] == ",".join(map(str, p["b"]["cores"]))  # where it started
PY
    expect_error 2 "--rotate-s" "$ftbench" duet --out "$tmp/d2" --sequential --rotate-s 1 "${run[@]}"
    expect_error 2 "--rotate-s" "$ftbench" duet --out "$tmp/d3" --rotate-s -1 "${run[@]}" ;;
  duet_bad_input)
    # Refused before any pair, one line naming the flag, exit 2, nothing written.
    expect_error 2 "--out" "$ftbench" duet "${run[@]}"
    expect_error 2 "--cores-per-side" taskset -c 0 "$ftbench" duet --out "$tmp/d1" "${run[@]}"
    grep -q "needs 2 cores" "$tmp/err" || fail "does not say what it needs: $(cat "$tmp/err")"
    [ ! -e "$tmp/d1/pair-1" ] || fail "a pair ran"
    expect_error 2 "--b" "$ftbench" duet --out "$tmp/d2" --b "$tmp/no-such-ftbench" "${run[@]}"
    if [ "$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l)" -lt 2 ]; then  # fewer than 2 GPUs: refused, saying what it has
      expect_error 2 "--gpus-per-side" "$ftbench" duet --out "$tmp/d7" --gpus-per-side 1 "${run[@]}"
      grep -q "needs 2 GPUs" "$tmp/err" || fail "does not say what it needs: $(cat "$tmp/err")"
    fi
    expect_error 2 "--looks" "$ftbench" duet --out "$tmp/d3" --looks 3,2 "${run[@]}"
    expect_error 2 "--b-env" "$ftbench" duet --out "$tmp/d4" --b-env NOEQUALS "${run[@]}"
    expect_error 2 "lr" "$ftbench" duet --out "$tmp/d5" --b-set lr=-1 "${run[@]}"
    mkdir -p "$tmp/d6" && echo '{}' >"$tmp/d6/duet.json"
    expect_error 2 "already holds a duet" "$ftbench" duet --out "$tmp/d6" "${run[@]}"
    [ "$(cat "$tmp/d6/duet.json")" = '{}' ] || fail "the earlier duet.json was overwritten" ;;
  duet_nightly_job)
    # tools/jobs/nightly_duet.sh in a copy of the tree's layout: the first
    # night keeps build/ftbench as the reference, the second judges against it
    # and promotes tonight's build when every row passes (a row left open:
    # exit 0, the reference stays).
    cpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
    [ "$cpus" -ge 2 ] || skip "needs 2 cores, this process may use $cpus"
    mkdir -p "$tmp/tree/tools/jobs" "$tmp/tree/build"
    cp "$root/tools/jobs/nightly_duet.sh" "$tmp/tree/tools/jobs/" && cp "$ftbench" "$tmp/tree/build/ftbench"
    "$tmp/tree/tools/jobs/nightly_duet.sh" "$tmp/out1" >"$tmp/log1" 2>&1 || fail "first night: $(cat "$tmp/log1")"
    [ -x "$tmp/tree/ref/ftbench" ] && grep -q "first night" "$tmp/log1" || fail "no reference kept: $(cat "$tmp/log1")"
    touch -d '2000-01-01' "$tmp/tree/ref/ftbench"
    FTB_DUET_ARGS="${run[*]} --looks 2" "$tmp/tree/tools/jobs/nightly_duet.sh" "$tmp/out2" >"$tmp/log2" 2>&1; rc=$?
    ls "$tmp"/out2/*/duet.json >/dev/null 2>&1 || fail "second night wrote no duet.json: $(tail -5 "$tmp/log2")"
    if [ "$rc" = 0 ] && grep -q "cannot tell for" "$tmp/log2"; then
      # no regression, a row left open: the reference stays
      [ ! "$tmp/tree/ref/ftbench" -nt "$tmp/log1" ] || fail "promoted with a row open: $(cat "$tmp/log2")"
      python3 -c 'import json, sys; sys.exit(0 if any(r.get("verdict") == "cannot tell" for r in json.load(open(sys.argv[1]))["rows"]) else 1)' \
        "$tmp"/out2/*/duet.json || fail "said cannot tell, duet.json has no such row"
    elif [ "$rc" = 0 ]; then
      [ "$tmp/tree/ref/ftbench" -nt "$tmp/log1" ] && grep -q "passed" "$tmp/log2" || fail "passed but not promoted"
    else
      [ "$rc" = 1 ] && [ ! "$tmp/tree/ref/ftbench" -nt "$tmp/log1" ] || fail "exit $rc, or promoted after a failure"
    fi ;;
  duet_power)
    # The design by simulation, both modes and none, deterministic; with an A/A duet file, its rows.
    "$ftbench" power --duet --duet-trials 200 >"$tmp/out" 2>"$tmp/err" || fail "power --duet: $(cat "$tmp/err")"
    for d in "at once" "taking turns" "independent"; do
      grep -q "^| $d " "$tmp/out" || fail "no line for $d: $(cat "$tmp/out")"
    done
    grep -q "modelled" "$tmp/out" || fail "not labelled as modelled"
    "$ftbench" power --duet --duet-trials 200 >"$tmp/again" 2>/dev/null
    cmp -s "$tmp/out" "$tmp/again" || fail "not deterministic"
    expect_error 2 "--side-sd" "$ftbench" power --duet --side-sd -1
    expect_error 2 "missing.json" "$ftbench" power --duet --duet-file "$tmp/missing.json" ;;
  duet_judged_elsewhere)
    # A recorded job (the committed example: a real 5 % slowdown, and an A/A
    # job) where a nightly reads it: the history keeps each row's change
    # against its reference, regress and compare judge it pair by pair, and
    # calibrate prints both designs' minimum detectable slowdown.
    ex="$root/results/duet-example-2026-12-07"
    "$ftbench" history add "$tmp/h.db" "$ex/slowdown-5pct/duet.json" >"$tmp/out" 2>"$tmp/err" || fail "history add: $(cat "$tmp/err")"
    grep -q "as duet 1: .*against commit 19a6fd027f4f, dirty, 3 rows" "$tmp/out" || fail "history add: $(cat "$tmp/out")"
    "$ftbench" history add "$tmp/h.db" "$ex/slowdown-5pct/duet.json" >"$tmp/out" 2>&1
    grep -q "already in the history as duet 1" "$tmp/out" || fail "added twice: $(cat "$tmp/out")"
    "$ftbench" history show "$tmp/h.db" >"$tmp/show" 2>"$tmp/err" || fail "history show: $(cat "$tmp/err")"
    grep -q "^### baseline: duet jobs" "$tmp/show" && grep -q "regressed\*\*" "$tmp/show" || fail "show: $(cat "$tmp/show")"
    "$ftbench" regress --current "$ex/slowdown-5pct/duet.json" >"$tmp/reg" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "regress on a 5 % slowdown: exit $rc: $(cat "$tmp/err")"
    cmp -s "$tmp/reg" "$ex/slowdown-5pct.md" || fail "regress judged otherwise than the job: $(diff "$tmp/reg" "$ex/slowdown-5pct.md" | head)"
    "$ftbench" regress --current "$ex/slowdown-5pct/duet.json" --history "$tmp/h.db" >"$tmp/reg" 2>"$tmp/err"
    # The jobs before it only: the history holds this job alone, so no series (itself left out).
    ! grep -q "duet jobs" "$tmp/reg" || fail "regress --history listed the job itself: $(cat "$tmp/reg")"
    "$ftbench" regress --current "$ex/aa-duet/duet.json" --min-effect 0.01 >"$tmp/reg1" 2>/dev/null
    grep -q "beyond +-1 %" "$tmp/reg1" || fail "regress --min-effect not applied: $(head -12 "$tmp/reg1")"
    expect_error 2 "--baseline" "$ftbench" regress --current "$ex/aa-duet/duet.json" --baseline "$ex/aa-duet/pair-1/a/report.json"
    "$ftbench" compare "$ex/aa-duet/duet.json" --out "$tmp/c" >"$tmp/cmp" 2>"$tmp/err" || fail "compare: $(cat "$tmp/err")"
    cmp -s "$tmp/cmp" "$ex/aa-duet.md" || fail "compare judged otherwise than the job: $(diff "$tmp/cmp" "$ex/aa-duet.md" | head)"
    [ -s "$tmp/c/compare.md" ] && [ -s "$tmp/c/compare.json" ] || fail "compare --out wrote nothing"
    "$ftbench" calibrate --reports "$ex"/aa-sequential/pair-{1,2,3,4}/{a,b}/report.json --out "$tmp/cal" \
      --duet-file "$ex/aa-duet/duet.json" --duet-file "$ex/aa-sequential/duet.json" >"$tmp/cal.md" 2>"$tmp/err" ||
      fail "calibrate --duet-file: $(cat "$tmp/err")"
    for d in "nightly rule" "duet, both at once" "duet, one side after the other"; do
      grep -q "^| baseline *| $d" "$tmp/cal.md" || fail "calibrate: no '$d' line: $(cat "$tmp/cal.md")"
    done
    expect_error 2 "missing.json" "$ftbench" calibrate --reports "$ex"/aa-sequential/pair-1/{a,b}/report.json \
      --out "$tmp/cal2" --duet-file "$tmp/missing.json" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
