#!/bin/bash
# The quick suite beside two busy loops (a noisy neighbour taking about half of the 2 cores).
cd /work/main
for i in 1 2; do ( while :; do :; done ) & done
s=$SECONDS
/tmp/bu/ftbench run --out /tmp/contended/run > /tmp/contended/run.stdout 2> /tmp/contended/run.stderr
echo "run_s=$((SECONDS - s)) rc=$?" > /tmp/contended/run_time.txt
kill $(jobs -p)
