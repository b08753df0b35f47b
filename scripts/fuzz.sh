#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in build-fuzz, runs each for
# a time box, then replays its regression corpus (tests/fuzz/regressions/<target>/: inputs that
# once crashed, kept so they never crash again).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 25; the six targets run nproc at a time)
#        FUZZ_RUNS=1000000 scripts/fuzz.sh      (a fixed number of executions per target instead)
#        FUZZ_BUILD_DIR=build-debug scripts/fuzz.sh  (reuse a clang build configured with
#                                                     -DKVSIM_BUILD_FUZZERS=ON, as scripts/test.sh does)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-25}
jobs=$(nproc)
targets=(fuzz_model_config fuzz_trace_reader fuzz_vllm_log fuzz_sweep_grid fuzz_compare_spec fuzz_cli_options fuzz_serve_config)
build=${FUZZ_BUILD_DIR:-build-fuzz}
if [[ -z ${FUZZ_BUILD_DIR:-} ]]; then
  CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-gline-tables-only -O1" -DKVSIM_USE_LLD=ON \
    -DKVSIM_BUILD_FUZZERS=ON -DKVSIM_BUILD_TESTS=OFF -DKVSIM_BUILD_BENCHMARKS=OFF -DKVSIM_WERROR=OFF > /dev/null
fi
cmake --build "$build" -j"$jobs" --target "${targets[@]}"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
root=$PWD  # absolute paths: fuzz_cli_options moves into a scratch directory before reading them
# One target: its time box (or run count), then its regression corpus. Its report goes to
# $build/<target>.report and its verdict (0 = clean) to $build/<target>.status.
fuzz_target() {
  local t=$1
  local seeds=$root/tests/fuzz/seeds/$t regressions=$root/tests/fuzz/regressions/$t work=$root/$build/corpus/$t
  local log="$build"/"$t".log
  mkdir -p "$work" "$regressions"
  # -timeout: one input over 10 s is a hang; -rss_limit_mb: over 2 GiB is a memory blow-up.
  local limits=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$root"/"$build"/"$t"- -print_final_stats=1)
  local budget
  if [[ -n ${FUZZ_RUNS:-} ]]; then budget=(-runs="$FUZZ_RUNS"); else budget=(-max_total_time="$seconds"); fi
  echo "== $t"
  if ! "$build"/tests/fuzz/"$t" "${limits[@]}" "${budget[@]}" "$work" "$seeds" > "$log" 2>&1; then
    tail -40 "$log"
    echo "$t: a finding (crash, sanitizer report, timeout or out-of-memory); the input is in $build/$t-*"
    return 1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$log" || true
  # The regression corpus: each input once, no mutation.
  "$build"/tests/fuzz/"$t" "${limits[@]}" -runs=0 "$regressions" > /dev/null 2>&1 ||
    { echo "$t: a regression input fails again"; "$build"/tests/fuzz/"$t" -runs=0 "$regressions"; return 1; }
}
# Each target is one single-threaded process, so they run $jobs at a time (each still gets its whole
# time box on a core of its own); the reports print in the targets' order.
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  rm -f "$build"/"$t".status
  (if fuzz_target "$t" > "$build"/"$t".report 2>&1; then echo 0; else echo 1; fi > "$build"/"$t".status) &
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "$build"/"$t".report
  [[ $(cat "$build"/"$t".status 2>/dev/null) == 0 ]] || failed=1
done
if ((failed)); then exit 1; fi
echo "== fuzz: every target ran clean"
