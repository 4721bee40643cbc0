#!/usr/bin/env bash
# The committed runs of the real launchers: the same rows started by SLURM
# (the job script tools/jobs/ftbench.sbatch, submitted with sbatch --wait to
# the private one-node cluster of tools/slurm_cluster.sh, its ranks started
# by srun), by Open MPI's mpirun, and by ftbench's own launcher (the
# reference), each folder with report.json, table.md and launchers.md
# (tools/launcher_table.py against the reference).
#   tools/launcher_runs.sh FTBENCH SRUN_OUT MPIRUN_OUT -- RUN_ARGS...
# Needs root, slurm-wlm, munge and openmpi-bin (tools/setup.sh --tests).
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = -- ] || { echo "usage: tools/launcher_runs.sh FTBENCH SRUN_OUT MPIRUN_OUT -- RUN_ARGS..." >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ftbench="$(realpath "$1")"; srun_out="$(realpath -m "$2")"; mpi_out="$(realpath -m "$3")"; shift 4
rows=ddp,zero3
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$srun_out" "$mpi_out"
"$ftbench" run --scenarios "$rows" --world-size 2 --out "$srun_out/own-launcher" "$@" 2>"$srun_out/own-launcher.err"
FTBENCH="$ftbench" OUT="$srun_out" SCENARIOS="$rows" MASTER_PORT="$(port)" \
  "$root/tools/slurm_cluster.sh" -- sbatch --wait --output="$srun_out/job.log" "$root/tools/jobs/ftbench.sbatch" "$@"
mpirun -np 2 --allow-run-as-root -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$(port)" \
  "$ftbench" run --scenarios "$rows" --out "$mpi_out" "$@" >"$mpi_out/mpirun.out" 2>"$mpi_out/mpirun.err"
for out in "$srun_out" "$mpi_out"; do
  python3 "$root/tools/launcher_table.py" "$out/report.json" --reference "$srun_out/own-launcher/report.json" >"$out/launchers.md"
done
echo "launcher_runs: $srun_out, $mpi_out"
