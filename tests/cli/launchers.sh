#!/usr/bin/env bash
# The launchers users start ranks with, really run: SLURM's srun, sbatch and
# scancel on a private single-node cluster (tools/slurm_cluster.sh: Debian's
# slurmctld, slurmd and munge), and Open MPI's mpirun. Rows ddp and zero3 on
# a tiny config, each ok with the accuracy and losses of the same run started
# by ftbench itself (--world-size 2), and the report saying who started the
# ranks (slurm, openmpi), on one node, two ranks.
#   tests/cli/launchers.sh FTBENCH FIXTURES CASE
# The SLURM cases need root and slurm-wlm + munge, the mpirun cases Open MPI
# (`tools/setup.sh --tests` installs them); elsewhere each case skips (77).
#
# How it fails: a row not ok or with other losses than ftbench's own launcher
# (a rank read the wrong rank or world from SLURM_* / OMPI_COMM_WORLD_*), the
# wrong launcher in the report, a batch script's own shell taken for rank 0
# of ranks nobody started (it waited at the rendezvous: the defect this
# issue found), a rank left running after scancel, a half-written report, or
# a layout ftbench cannot serve that is not one `ftbench:` line naming the
# variable, exit 2, on every rank.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

repo="$fixtures/../.."
cluster="$repo/tools/slurm_cluster.sh"
job="$repo/tools/jobs/ftbench.sbatch"  # the job script docs/distributed.md includes
rows=ddp,zero3
# dist_timeout_s: a rank that cannot meet its peer fails in 60 s, not 300.
small=("${tiny[@]}" dist_timeout_s=60)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# in_cluster SCRIPT: runs bash SCRIPT inside a fresh cluster, with ftbench,
# tmp, rows and the run's arguments in its environment; skips (77) where
# the cluster cannot start.
in_cluster() {
  FTBENCH="$ftbench" TMP="$tmp" ROWS="$rows" RUN_ARGS="--device cpu ${small[*]}" \
    "$cluster" -- bash -c "$1" >"$tmp/cluster.log" 2>&1
  local rc=$?
  [ "$rc" = 77 ] && skip "$(tail -1 "$tmp/cluster.log")"
  return "$rc"
}

# The reference: ftbench's own launcher, two ranks on this machine.
reference() {
  "$ftbench" run --scenarios "$rows" --world-size 2 --device cpu --out "$tmp/ref" "${small[@]}" \
    >"$tmp/ref.out" 2>"$tmp/ref.err" || fail "ftbench's own 2-rank run failed: $(tail -3 "$tmp/ref.err")"
}

# check REPORT LAUNCHER: rows ok, as the reference, the launcher, 1 node, 2 ranks.
check() {
  python3 - "$tmp/ref/report.json" "$1" "$2" "$(hostname)" <<'PY' || fail "the report under $2 is wrong"
import json, sys
ref_path, path, launcher, here = sys.argv[1:]
ref = {x["scenario"]: x for x in json.load(open(ref_path))["results"]}
got = {x["scenario"]: x for x in json.load(open(path))["results"]}
assert list(got) == ["ddp", "zero3"], list(got)
for name, x in got.items():
    r = ref[name]
    assert r["status"] == "ok", (name, "reference", r["reason"])
    assert x["status"] == "ok", (name, x["reason"])
    assert x["world_size"] == 2, x["world_size"]
    d = x["distributed"]
    assert r["distributed"]["launcher"] == "ftbench", r["distributed"]
    assert d["launcher"] == launcher, (name, d["launcher"], launcher)
    assert d["nodes"] == 1 and d["hosts"] == [here, here], (name, d.get("nodes"), d.get("hosts"))
    # The same ranks on the same shards: the same arithmetic, bit for bit.
    assert x["accuracy"] == r["accuracy"], (name, x["accuracy"], r["accuracy"])
    assert x["loss"] == r["loss"], (name, x["loss"], r["loss"])
    assert [e["train_loss"] for e in x["epochs"]] == [e["train_loss"] for e in r["epochs"]], name
print(launcher + ":", {n: (x["distributed"]["launcher"], x["world_size"], x["accuracy"]) for n, x in got.items()})
PY
}

# one_error_per_rank CODE NEEDLE FILES...: each file (a rank's stderr) ends in
# exactly one `ftbench:` line naming NEEDLE, and shows no training.
one_error_per_rank() {
  local needle="$1" f; shift
  [ "$#" -ge 2 ] || fail "want a stderr per rank, got: $*"
  for f in "$@"; do
    [ "$(grep -c '^ftbench: ' "$f")" = 1 ] || fail "$f: want one 'ftbench:' line, got: $(cat "$f")"
    grep '^ftbench: ' "$f" | grep -qF -- "$needle" || fail "$f: the error does not name $needle: $(cat "$f")"
    ! grep -q ' epoch ' "$f" || fail "$f: a rank trained before the error"
  done
}

case "$case_name" in
  dist_srun)
    # An allocation (salloc) whose two tasks srun starts; MASTER_ADDR from
    # scontrol, as docs/distributed.md says.
    port="$(free_port)"
    in_cluster "salloc -n 2 bash -c '
      export MASTER_ADDR=\$(scontrol show hostnames \"\$SLURM_JOB_NODELIST\" | head -n 1) MASTER_PORT=$port
      timeout 240 srun --kill-on-bad-exit=1 \"\$FTBENCH\" run --scenarios \$ROWS --out \$TMP/o \$RUN_ARGS'" ||
      fail "srun run: exit $?: $(grep -v ' step ' "$tmp/cluster.log" | tail -5)"
    grep -q "started by slurm" "$tmp/cluster.log" || fail "the printed config does not say 'started by slurm'"
    reference
    check "$tmp/o/report.json" slurm ;;
  dist_sbatch)
    # The committed job script, submitted as a user would, waited for.
    port="$(free_port)"
    in_cluster "MASTER_PORT=$port OUT=\$TMP/o SCENARIOS=\$ROWS timeout 240 sbatch --wait --output=\$TMP/job.log \
      --chdir=\$TMP $job \$RUN_ARGS" || fail "sbatch --wait: exit $?: $(tail -3 "$tmp/cluster.log"); job: $(grep -v ' step ' "$tmp/job.log" | tail -5)"
    [ -s "$tmp/o/report.json" ] || fail "no report where the job script says (\$OUT/report.json)"
    reference
    check "$tmp/o/report.json" slurm ;;
  dist_sbatch_without_srun)
    # ftbench called by a batch script's own shell (no srun) in a job of 2
    # tasks: SLURM_PROCID=0 and SLURM_NTASKS=2 but no step. One plain process,
    # whose rows start their own 2 ranks; before issue 35 it took itself for
    # rank 0 of 2 and waited at the rendezvous until dist_timeout_s.
    printf '#!/bin/bash\nexec "$FTBENCH" run --scenarios ddp --out "$TMP/o" $RUN_ARGS\n' >"$tmp/plain.sbatch"
    in_cluster "timeout 120 sbatch --wait --ntasks=2 --output=\$TMP/job.log $tmp/plain.sbatch" ||
      fail "the batch script's ftbench: exit $?: $(grep -v ' step ' "$tmp/job.log" | tail -5)"
    python3 - "$tmp/o/report.json" <<'PY' || fail "the report of the batch script's ftbench is wrong"
import json, sys
x = json.load(open(sys.argv[1]))["results"][0]
assert x["status"] == "ok" and x["world_size"] == 2, (x["status"], x.get("reason"))
assert x["distributed"]["launcher"] == "ftbench", x["distributed"]
PY
    ;;
  dist_scancel)
    # The job cancelled while it trains: the job ends non-zero, no ftbench
    # process remains within 60 s, and the report on disk (if any) is whole.
    port="$(free_port)"
    in_cluster "MASTER_PORT=$port OUT=\$TMP/o SCENARIOS=ddp timeout 240 sbatch --wait --output=\$TMP/job.log --chdir=\$TMP \
      $job --device cpu epochs=3 synthetic_count=20000 prefetch=1 threads=2 >\$TMP/sbatch.out 2>&1 &
      waiter=\$!
      for _ in \$(seq 600); do grep -q '\[ddp\] epoch 1/3 step' \$TMP/job.log 2>/dev/null && break; sleep 0.2; done
      grep -q '\[ddp\] epoch 1/3 step' \$TMP/job.log || { echo 'training never started'; exit 3; }
      scancel \$(sed -n 's/^Submitted batch job //p' \$TMP/sbatch.out); at=\$SECONDS
      wait \$waiter; rc=\$?
      echo \"sbatch --wait: exit \$rc\"; [ \$rc != 0 ] || { echo 'exit 0 after scancel'; exit 4; }
      for _ in \$(seq 600); do pgrep -f -- \"\$TMP/o\" >/dev/null || break; sleep 0.1; done
      took=\$((SECONDS - at)); echo \"no ftbench process \${took}s after scancel\"
      if pgrep -f -- \"\$TMP/o\" >/dev/null; then pgrep -af -- \"\$TMP/o\"; pkill -9 -f -- \"\$TMP/o\"; exit 5; fi
      [ \$took -le 60 ] || exit 6" || fail "scancel case: exit $?: $(tail -5 "$tmp/cluster.log")"
    grep "after scancel" "$tmp/cluster.log"
    for f in "$tmp"/o/*.json; do
      [ -e "$f" ] || continue
      python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" || fail "$f is not whole JSON after scancel"
    done ;;
  dist_srun_world_size_mismatch)
    # srun started 2 ranks but the command asks for 3: every rank says so in
    # one line naming SLURM_NTASKS, exit 2, before any training.
    port="$(free_port)"
    in_cluster "MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 srun -n 2 --error=\$TMP/rank%t.err --output=\$TMP/rank%t.out \
      \"\$FTBENCH\" run --scenarios \$ROWS --world-size 3 --out \$TMP/o \$RUN_ARGS"
    rc=$?
    [ "$rc" = 2 ] || fail "srun: exit $rc, want 2: $(tail -3 "$tmp/cluster.log"; cat "$tmp"/rank*.err)"
    one_error_per_rank SLURM_NTASKS "$tmp"/rank*.err
    [ ! -e "$tmp/o" ] || fail "a rank wrote $tmp/o" ;;
  dist_mpirun)
    command -v mpirun >/dev/null || skip "no mpirun (apt install openmpi-bin, or tools/setup.sh --tests)"
    port="$(free_port)"
    timeout 240 mpirun -np 2 --allow-run-as-root -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$port" \
      "$ftbench" run --scenarios "$rows" --device cpu --out "$tmp/o" "${small[@]}" >"$tmp/mpi.out" 2>"$tmp/mpi.err" ||
      fail "mpirun run: exit $?: $(grep -v ' step ' "$tmp/mpi.err" | tail -5)"
    grep -q "started by openmpi" "$tmp/mpi.err" "$tmp/mpi.out" || fail "the printed config does not say 'started by openmpi'"
    reference
    check "$tmp/o/report.json" openmpi ;;
  dist_mpirun_without_master_addr)
    # mpirun chooses no rendezvous: without MASTER_ADDR each rank stops at once.
    command -v mpirun >/dev/null || skip "no mpirun (apt install openmpi-bin, or tools/setup.sh --tests)"
    env -u MASTER_ADDR timeout 120 mpirun -np 2 --allow-run-as-root --output-filename "$tmp/mpi" \
      "$ftbench" run --scenarios "$rows" --device cpu --out "$tmp/o" "${small[@]}" >"$tmp/mpi.out" 2>"$tmp/mpi.err"
    rc=$?
    [ "$rc" = 2 ] || fail "mpirun: exit $rc, want 2: $(tail -5 "$tmp/mpi.err")"
    one_error_per_rank MASTER_ADDR "$tmp"/mpi/1/rank.*/stderr
    [ ! -e "$tmp/o" ] || fail "a rank wrote $tmp/o" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
