#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing, then build and run every test
# twice: a Release build, and an AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKVSIM_BUILD_TESTS=ON -DKVSIM_BUILD_BENCHMARKS=ON > /dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== ASan+UBSan build and tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVSIM_ENABLE_SANITIZERS=ON \
  -DKVSIM_BUILD_TESTS=ON -DKVSIM_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")
