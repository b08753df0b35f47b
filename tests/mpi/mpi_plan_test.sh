#!/usr/bin/env bash
# kvsim plan under mpirun on loopback against one process: the configuration searches run on
# whichever rank is free, yet the plan's JSON (every configuration's verdict, replays and bound) and
# its text are byte-identical to one process on one thread and on two, on 2 ranks x 1 thread and on
# 3 ranks x 2 threads (the window's bounds do not depend on the slots, sim/plan/plan_window.h).
# Usage: mpi_plan_test.sh KVSIM MPIRUN WORKDIR
set -euo pipefail
kvsim=$1 mpirun=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
# As tests/mpi/mpi_sweep_test.sh: one host, oversubscribed, shared memory between the ranks.
mpi=("$mpirun" --oversubscribe --allow-run-as-root --mca pml ob1 --mca btl self,vader --mca oob_tcp_if_include lo)
# 24 configurations, 2 that do not start, a cost bound that prunes some and caps others' replicas.
space=(--gpus l4,a100-80gb --tp 1,2 --formats checkpoint,fp8 --max-num-seqs 32,64,256 --max-num-batched-tokens 8192
       --max-model-len 65536 --slo ttft-p99=2s,tpot-p99=60ms --gpu-hourly-cost l4=0.8,a100-80gb=1.8
       --max-requests 1500 --rate-scale 2 --max-replicas 8)
fail() { echo "FAIL: $*"; exit 1; }

"$kvsim" plan "${space[@]}" --jobs 1 --json one.json > one.txt 2> one.err
"$kvsim" plan "${space[@]}" --jobs 2 --json two.json > two.txt 2> /dev/null
"${mpi[@]}" -np 2 "$kvsim" plan "${space[@]}" --jobs 1 --json r2.json > r2.txt 2> r2.err
"${mpi[@]}" -np 3 "$kvsim" plan "${space[@]}" --jobs 2 --json r3.json > r3.txt 2> /dev/null
grep -q '"winner"' one.json || fail "no winner in the plan's JSON"
for run in two r2 r3; do
  cmp one.json "$run.json" || fail "$run.json differs from one process on one thread"
  diff <(sed 's/[a-z0-9]*\.json/X.json/' one.txt) <(sed 's/[a-z0-9]*\.json/X.json/' "$run.txt") > /dev/null ||
    fail "$run.txt differs from one process on one thread"
done
grep -q "on 2 ranks x 1 threads" r2.err || fail "the plan did not run on 2 ranks: $(cat r2.err)"
echo "plan: 2 ranks x 1 thread and 3 ranks x 2 threads byte-identical to one process ($(sed -n 's/^kvsim plan: \([0-9]* replays of [0-9]* points\)/\1/p' one.err))"
