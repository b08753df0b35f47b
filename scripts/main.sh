#!/usr/bin/env bash
# The README's first command: install what is missing, build kvsim (Release) and run the main job
# on the bundled defaults. Extra arguments go to `kvsim capacity`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKVSIM_BUILD_TESTS=OFF -DKVSIM_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build build -j"$(nproc)" --target kvsim
build/kvsim capacity "$@"
