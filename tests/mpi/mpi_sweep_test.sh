#!/usr/bin/env bash
# kvsim sweep under mpirun on loopback, against the threaded run on one machine:
#  1. a grid on 2 ranks x 1 thread (shared memory) and on 3 ranks x 2 threads (TCP on loopback,
#     --broadcast-trace): console table,
#     CSV and JSON byte-identical to `kvsim sweep --jobs 2`;
#  2. compare on 2 ranks: table and JSON byte-identical to `kvsim compare --jobs 2`;
#     --find rate-scale on 3 ranks: same table and JSON as the serial search, in fewer rounds than
#     it has probes;
#  3. a worker rank killed mid-sweep (it holds its first point 1.5 s, then SIGKILL, through a test-only
#     environment variable) while rank 0 finishes others: non-zero
#     exit, the lost point named, the finished points in the CSV (each row as the threaded run
#     printed it) ending with "# partial:", and "partial": true in the JSON.
# Usage: mpi_sweep_test.sh KVSIM MPIRUN WORKDIR
set -euo pipefail
kvsim=$1 mpirun=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
# One host, oversubscription allowed on CI's 2 cores; the ob1 messaging layer (Open MPI's UCX probe
# alone costs ~0.2 s per start). Shared memory between the ranks, or TCP on loopback (mpi_tcp).
mpi=("$mpirun" --oversubscribe --allow-run-as-root --mca pml ob1 --mca btl self,vader --mca oob_tcp_if_include lo)
mpi_tcp=("$mpirun" --oversubscribe --allow-run-as-root --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo
         --mca oob_tcp_if_include lo)
grid=(--sweep max-num-seqs=16,32,64 --sweep max-num-batched-tokens=2048,8192 --max-requests 1500
      --slo ttft-p99=2s --omit-wall-time)
fail() { echo "FAIL: $*"; exit 1; }

"$kvsim" sweep "${grid[@]}" --jobs 2 --csv threads.csv --json threads.json > threads.txt 2> /dev/null
"${mpi[@]}" -np 2 "$kvsim" sweep "${grid[@]}" --jobs 1 --csv r2.csv --json r2.json > r2.txt
"${mpi_tcp[@]}" -np 3 "$kvsim" sweep "${grid[@]}" --jobs 2 --broadcast-trace --csv r3.csv --json r3.json > r3.txt
for run in r2 r3; do
  for ext in txt csv json; do cmp "threads.$ext" "$run.$ext" || fail "$run.$ext differs from the threaded run"; done
done
[[ $(wc -l < threads.csv) == 7 ]] || fail "expected 6 points in the CSV"
echo "grid: 2 and 3 ranks byte-identical to --jobs 2"

deployments=(--max-requests 1500 --gpu l4 --max-model-len 8192 --a "--quantization none" --b "--quantization awq"
             --c "--max-num-seqs 32")
"$kvsim" compare "${deployments[@]}" --jobs 2 --json compare-threads.json > compare-threads.txt
"${mpi[@]}" -np 2 "$kvsim" compare "${deployments[@]}" --jobs 1 --json compare-r2.json > compare-r2.txt
cmp compare-threads.txt compare-r2.txt || fail "compare on 2 ranks printed another table"
cmp compare-threads.json compare-r2.json || fail "compare on 2 ranks wrote another JSON"
echo "compare: 2 ranks byte-identical to --jobs 2"

search=(--find rate-scale --max-requests 1500 --slo ttft-p99=2s,tpot-p99=100ms --omit-wall-time)
"$kvsim" sweep "${search[@]}" --jobs 1 --json serial.json > serial.txt
"${mpi[@]}" -np 3 "$kvsim" sweep "${search[@]}" --jobs 1 --json ranks.json > ranks.txt 2> ranks.err
cmp serial.txt ranks.txt || fail "the search on 3 ranks printed another table or answer"
cmp serial.json ranks.json || fail "the search on 3 ranks wrote another JSON"
read -r reported rounds < <(sed -nE 's/.*: ([0-9]+) probes reported, [0-9]+ run in ([0-9]+) rounds.*/\1 \2/p' ranks.err)
[[ -n ${rounds:-} ]] || fail "no rounds line on stderr: $(cat ranks.err)"
((rounds < reported)) || fail "$rounds rounds for $reported serial probes"
echo "search: same answer and $reported probes, in $rounds rounds on 3 ranks"

set +e
KVSIM_TEST_MPI_DIE_AFTER_MS=1500 "${mpi[@]}" -x KVSIM_TEST_MPI_DIE_AFTER_MS -np 2 "$kvsim" sweep "${grid[@]}" --jobs 1 \
  --csv killed.csv --json killed.json > killed.txt 2> killed.err
status=$?
set -e
((status != 0)) || fail "a killed rank left exit status 0"
grep -q "(sent to rank 1)" killed.err || fail "the lost point is not named: $(cat killed.err)"
[[ $(tail -n 1 killed.csv) == "# partial: "* ]] || fail "the CSV does not end with '# partial:'"
rows=$(grep -vc '^#' killed.csv)
((rows >= 2 && rows < 7)) || fail "expected some but not all points in the CSV, got $((rows - 1))"
while IFS= read -r row; do
  grep -qxF -- "$row" threads.csv || fail "finished row differs from the threaded run: $row"
done < <(grep -v '^#' killed.csv)
grep -q '"partial": true' killed.json || fail "the JSON is not marked partial"
echo "killed rank: exit $status, $((rows - 1)) finished points kept, $(grep -o 'points not finished ([0-9]*)' killed.err)"
