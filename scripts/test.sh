#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing, then build and run every test
# twice: a Release build (gcc), and a Debug build (clang) with AddressSanitizer +
# UndefinedBehaviorSanitizer and assertions (KVSIM_DCHECK, assert) on, whose libFuzzer targets also
# run for a time box (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
jobs=$(nproc)
start=$SECONDS

echo "== Release build and tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKVSIM_BUILD_TESTS=ON -DKVSIM_BUILD_BENCHMARKS=ON > /dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
echo "== Release: $((SECONDS - start)) s so far"

echo "== Debug + ASan/UBSan build (clang, assertions on, every layer instrumented for libFuzzer too)"
# One sanitized build serves both the fuzz targets and the Debug test run. -O1 keeps the sanitized
# replays of whole traces fast enough for CI; NDEBUG stays undefined. Line tables are all the
# sanitizers' stack traces read (function, file, line and column, inlined frames too), at a fraction
# of full -g's compile and link time; lld links the instrumented programs.
CXX=clang++ cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" \
  -DKVSIM_USE_LLD=ON -DKVSIM_ENABLE_SANITIZERS=ON -DKVSIM_BUILD_FUZZERS=ON -DKVSIM_WERROR=OFF \
  -DKVSIM_BUILD_TESTS=ON -DKVSIM_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build build-debug -j"$jobs"
echo "== Debug build: $((SECONDS - start)) s so far"

echo "== Fuzz: every libFuzzer target for 15 s, then its regression corpus"
FUZZ_BUILD_DIR=build-debug scripts/fuzz.sh 15
echo "== Fuzz: $((SECONDS - start)) s so far"

echo "== Debug + ASan/UBSan tests"
(cd build-debug && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")
echo "== all tests passed in $((SECONDS - start)) s"
