#!/usr/bin/env bash
# Two nodes on one machine: two network namespaces joined by a veth pair, each
# with its own host name (a UTS namespace) and one rank of ftbench, meeting
# over the link as two machines would. Once by a job script's RANK /
# WORLD_SIZE / MASTER_ADDR environment, once through .venv's torchrun with
# --nnodes 2 (c10d rendezvous on the link's address); rows ddp, zero3 and
# zero3_offload on a tiny config, each ok with the accuracy and losses of the
# one-node 2-rank run (ftbench's own launcher on loopback), and the report
# saying who launched the ranks, on how many nodes, on which hosts.
#   tests/cli/multinode.sh FTBENCH FIXTURES CASE
# Needs root (CI is) and `ip netns`; elsewhere each case skips (77). The
# namespaces come from tools/two_nodes.sh (the command of the committed
# results/multinode-2026-12-02), which removes them whatever happens.
#
# How it fails: a row not ok (the ranks never met over the link: MASTER_ADDR
# or GLOO_SOCKET_IFNAME not honoured, a rank bound to loopback: each node's
# own name is at Debian's 127.0.1.1, so Gloo's default device would bind
# there; tried by hand without GLOO_SOCKET_IFNAME: rank 0's connectFullMesh
# was refused at 127.0.1.1 and the run failed in 4 s), an accuracy
# or loss that differs from the one-node run (a rank trained other data or
# reduced wrong across the link), or a report that calls the environment
# "torchrun" (the defect of issue 28), records one node, or the wrong hosts.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rows=ddp,zero3,zero3_offload
# dist_timeout_s: a rank that cannot reach its peer fails in 60 s, not 300.
small=("${tiny[@]}" dist_timeout_s=60)
two_nodes="$fixtures/../../tools/two_nodes.sh"  # the namespaces, veth, host names, cleanup

# two_nodes [--torchrun T]: both nodes' run into $tmp/two; skips (77) where
# the tool cannot make namespaces (not root, no `ip netns`).
two_nodes() {
  "$two_nodes" "$@" "$ftbench" "$tmp/two" -- --scenarios "$rows" --device cpu "${small[@]}" >"$tmp/two.log" 2>&1
  local rc=$?
  [ "$rc" = 77 ] && skip "$(tail -1 "$tmp/two.log")"
  [ "$rc" = 0 ] || fail "two-node run: exit $rc: $(tail -5 "$tmp/two.log")"
}

# The one-node reference: ftbench's own launcher, two ranks on loopback.
reference() {
  "$ftbench" run --scenarios "$rows" --world-size 2 --device cpu --out "$tmp/ref" "${small[@]}" \
    >"$tmp/ref.out" 2>"$tmp/ref.err" || fail "one-node run failed: $(tail -3 "$tmp/ref.err")"
}

# check REPORT LAUNCHER: rows ok, as the reference, launcher/nodes/hosts.
check() {
  python3 - "$tmp/ref/report.json" "$1" "$2" "$(hostname)" <<'PY' || fail "the two-node report is wrong"
import json, sys
ref_path, path, launcher, here = sys.argv[1:]
ref = {x["scenario"]: x for x in json.load(open(ref_path))["results"]}
got = {x["scenario"]: x for x in json.load(open(path))["results"]}
assert list(got) == ["ddp", "zero3", "zero3_offload"], list(got)
for name, x in got.items():
    r = ref[name]
    assert r["status"] == "ok", (name, "reference", r["reason"])
    assert x["status"] == "ok", (name, x["reason"])
    assert x["world_size"] == 2, x["world_size"]
    d, rd = x["distributed"], r["distributed"]
    assert rd["launcher"] == "ftbench" and rd["nodes"] == 1 and rd["hosts"] == [here, here], rd
    assert d["launcher"] == launcher, (name, d["launcher"], launcher)
    # by rank; under torchrun the rendezvous decides which node holds rank 0
    assert d["nodes"] == 2 and sorted(d["hosts"]) == ["node0", "node1"], (name, d.get("nodes"), d.get("hosts"))
    assert launcher != "environment" or d["hosts"] == ["node0", "node1"], d["hosts"]
    # The same training on the same data: the two nodes reduce what the one
    # node's two ranks reduce (Gloo's sum of two is exact either way).
    assert x["accuracy"] == r["accuracy"], (name, x["accuracy"], r["accuracy"])
    assert x["loss"] == r["loss"], (name, x["loss"], r["loss"])
    assert [e["train_loss"] for e in x["epochs"]] == [e["train_loss"] for e in r["epochs"]], name
print("two nodes:", {n: (x["distributed"]["launcher"], x["distributed"]["hosts"], x["accuracy"]) for n, x in got.items()})
PY
}

case "$case_name" in
  dist_multinode_env)
    # A job script's plain environment on each node (what SLURM users often
    # write by hand): RANK, WORLD_SIZE, MASTER_ADDR on the link.
    two_nodes  # first: where it skips, nothing else runs
    reference
    grep -q "started by environment" "$tmp/two/node0.out" || fail "the printed config does not say 'started by environment'"
    grep -q "| ddp | ok | environment | 2 | node0, node1 |" "$tmp/two/nodes.md" || fail "nodes.md: $(cat "$tmp/two/nodes.md")"
    check "$tmp/two/report.json" environment ;;
  dist_multinode_torchrun)
    # torchrun --nnodes 2 on each node, rendezvous (c10d) at node 0's link
    # address; it needs a torchrun of this ftbench's LibTorch (see
    # run_ranks.sh's dist_torchrun: another version's store protocol differs).
    torchrun="$fixtures/../../.venv/bin/torchrun"
    [ -x "$torchrun" ] || skip "no $torchrun (LibTorch not from the wheel)"
    theirs="$("$(dirname "$torchrun")/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)" ||
      fail "cannot read the torch version of $torchrun"
    ours="${FTB_LIBTORCH_VERSION:?FTB_LIBTORCH_VERSION is set by tests/CMakeLists.txt}"
    [ "$(echo "$theirs" | cut -d. -f1-2)" = "$(echo "$ours" | cut -d. -f1-2)" ] ||
      skip "$torchrun is torch $theirs, this ftbench is built on LibTorch $ours"
    two_nodes --torchrun "$torchrun"
    reference
    check "$tmp/two/report.json" torchrun ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
