#!/usr/bin/env bash
# Runs `ftbench run` as two nodes of one rank each on this machine: two
# network namespaces joined by a veth pair (192.168.77.1 <-> .2), each with its
# own host name (node0, node1: a UTS namespace), meeting over the link as two
# machines would (MASTER_ADDR on the link, GLOO_SOCKET_IFNAME naming the
# veth). Each node's /etc/hosts is a Debian machine's: its own name at
# 127.0.1.1 (what the installer writes), the peer's at its link address; so
# a rank that ignores GLOO_SOCKET_IFNAME and resolves its own host name binds
# to loopback and its peer cannot reach it, the trap of real clusters. Rank 0's report lands in OUT, with
# nodes.md (per row: launcher, nodes, each rank's host) beside ftbench's
# table.md, and each node's stdout/stderr in OUT/node<N>.{out,err}.
#
#   tools/two_nodes.sh [--torchrun TORCHRUN] FTBENCH OUT -- RUN_ARGS...
#
# Default: a job script's plain environment (RANK, WORLD_SIZE, MASTER_ADDR,
# MASTER_PORT) on each node. --torchrun: TORCHRUN --nnodes 2 --nproc-per-node
# 1 on each node, c10d rendezvous at node0:29400 (which node holds rank 0 is
# the rendezvous's choice). By host name, as a job script names rank 0's
# machine: torchrun's agent serves the rendezvous store where the endpoint is
# its own host name; an IP address counts only if its own name resolves to
# it, which Debian's 127.0.1.1 does not (with the link's address node0 waited
# as a client of a store nobody served: tried).
# Needs root, `ip netns` and `unshare --uts` (CI has them); exits 77 where the
# machine cannot make the namespaces, the veth pair or the UTS namespace, 1
# when a node fails. The namespaces, their /etc/netns files, the veth pair
# and any process left in them are removed whatever happens: on exit, and,
# for a run killed outright (SIGKILL: ctest's TIMEOUT), by the next run, which
# first removes every ftb<pid> namespace whose pid is gone. Each node's run
# is bounded (timeout 240 s, below the ctest cases' TIMEOUT). Names carry this
# shell's pid, so parallel runs never clash.
set -uo pipefail

torchrun=""
if [ "${1:-}" = --torchrun ]; then torchrun="$2"; shift 2; fi
[ $# -ge 3 ] && [ "$3" = -- ] || { echo "usage: tools/two_nodes.sh [--torchrun TORCHRUN] FTBENCH OUT -- RUN_ARGS..." >&2; exit 2; }
ftbench="$1"; out="$2"; shift 3
link=192.168.77
ns="ftb$$"
cannot() { echo "two_nodes: cannot make two nodes here: $*" >&2; exit 77; }
die() { echo "two_nodes: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || cannot "not root (network namespaces need it)"
command -v ip >/dev/null 2>&1 || cannot "no ip command (iproute2)"
command -v unshare >/dev/null 2>&1 || cannot "no unshare (util-linux)"
err="$(unshare --uts true 2>&1)" || cannot "unshare --uts: $err"

# remove NAME (ftb<pid>, without a/b): its processes, namespaces, /etc/netns
# files and the veth pair (deleting one end deletes both, wherever it is).
remove() {
  local side
  for side in a b; do
    ip netns pids "$1${side}" 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del "$1${side}" 2>/dev/null
    rm -rf "/etc/netns/$1${side}"
  done
  ip link del "$1a0" 2>/dev/null
  ip link del "$1b0" 2>/dev/null
}
cleanup() { remove "$ns"; }
# What a run killed outright left behind (its EXIT trap never ran).
for old in $(ip netns list 2>/dev/null | sed -n 's/^\(ftb[0-9]\+\)[ab]\b.*/\1/p' | sort -u); do
  kill -0 "${old#ftb}" 2>/dev/null || remove "$old"
done
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every step below is the machine's limit (a container without the
# capability, no veth module), not ftbench's: a skip.
err="$(ip netns add "${ns}a" 2>&1)" || cannot "ip netns add: $err"
err="$(ip netns add "${ns}b" 2>&1)" || cannot "ip netns add (a second): $err"
err="$(ip link add "${ns}a0" type veth peer name "${ns}b0" 2>&1)" || cannot "ip link add type veth: $err"
i=1
for side in a b; do
  err="$(ip link set "${ns}${side}0" netns "${ns}${side}" 2>&1 &&
    ip -n "${ns}${side}" addr add "$link.$i/24" dev "${ns}${side}0" 2>&1 &&
    ip -n "${ns}${side}" link set "${ns}${side}0" up 2>&1 &&
    ip -n "${ns}${side}" link set lo up 2>&1)" || cannot "cannot set up the link in ${ns}${side}: $err"
  # ip netns exec bind-mounts /etc/netns/NS/hosts over /etc/hosts.
  me=$((i - 1)); peer=$((2 - i))  # node numbers: namespace a is node0
  mkdir -p "/etc/netns/${ns}${side}" &&
    printf '127.0.0.1 localhost\n127.0.1.1 node%s\n%s.%s node%s\n' "$me" "$link" "$((peer + 1))" "$peer" \
      >"/etc/netns/${ns}${side}/hosts" ||
    cannot "cannot write /etc/netns/${ns}${side}/hosts (read-only /etc?)"
  i=$((i + 1))
done

mkdir -p "$out" || die "cannot make $out"
work="$(mktemp -d)"
trap 'cleanup; rm -rf "$work"' EXIT
# node N (0: namespace a, 1: b), host name nodeN, GLOO_SOCKET_IFNAME its veth.
for n in 1 0; do
  side=$([ "$n" = 0 ] && echo a || echo b)
  if [ -n "$torchrun" ]; then
    launch=(env GLOO_SOCKET_IFNAME="${ns}${side}0" "$torchrun" --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d
            --rdzv-endpoint node0:29400 --rdzv-id "$ns" --local-addr "$link.$((n + 1))" --max-restarts 0 --no-python)
  else
    launch=(env RANK=$n WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=$link.1 MASTER_PORT=29500
            GLOO_SOCKET_IFNAME="${ns}${side}0")
  fi
  ip netns exec "${ns}${side}" unshare --uts sh -c 'hostname "$0" && exec "$@"' "node$n" \
    timeout 240 "${launch[@]}" "$ftbench" run --out "$work/o$n" "$@" >"$out/node$n.out" 2>"$out/node$n.err" &
  eval "pid$n=$!"
done
# Whichever node ends first: a failure ends the run at once (die's exit runs
# cleanup, which kills the other node's processes), not after the other node
# waited out its timeout.
# (A poll, not `wait -n`: bash's wait -n misses a node that ended before it.)
running=(0 1)
while [ "${#running[@]}" -gt 0 ]; do
  still=()
  for n in "${running[@]}"; do
    pid="$(eval echo "\$pid$n")"
    if kill -0 "$pid" 2>/dev/null; then still+=("$n"); continue; fi
    wait "$pid"; rc=$?
    [ "$rc" = 0 ] || die "node$n failed (exit $rc); last lines: $(grep -hv ' step ' "$out"/node*.err | tail -5)"
  done
  running=("${still[@]}")
  [ "${#running[@]}" = 0 ] || sleep 0.5
done

# Rank 0 wrote the report (the other rank none): move it into OUT.
reports=("$work"/o*/report.json)
[ "${#reports[@]}" = 1 ] && [ -e "${reports[0]}" ] || die "want one report, got: ${reports[*]}"
cp -r "$(dirname "${reports[0]}")"/. "$out"/ || die "cannot copy the report into $out"
python3 - "$out/report.json" >"$out/nodes.md" <<'PY' || die "cannot write nodes.md"
import json, sys
rows = [x for x in json.load(open(sys.argv[1]))["results"] if x.get("distributed")]
print("| row | status | launcher | nodes | host of each rank | test acc |")
print("|---|---|---|---|---|---|")
for x in rows:
    d = x["distributed"]
    acc = x.get("accuracy", {}).get("test")
    print(f"| {x['scenario']} | {x['status']} | {d.get('launcher', '')} | {d.get('nodes', '')} | "
          f"{', '.join(d.get('hosts', []))} | {'' if acc is None else f'{100 * acc:.2f} %'} |")
PY
echo "two_nodes: report in $out"
