#!/usr/bin/env bash
# The README's first command: install what is missing, build kvsim (Release) and run the main job
# on the bundled defaults: `kvsim replay` of the Azure LLM inference conversation trace (2023) with
# Llama-3.1-8B-Instruct on an A100-80GB, writing replay.json and the HTML report replay.html. Extra arguments go to `kvsim replay`.
# The build includes the Python module (build/python/kvsim) when python3-dev and pybind11-dev are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKVSIM_BUILD_TESTS=OFF -DKVSIM_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build build -j"$(nproc)"
build/kvsim replay --json replay.json --report replay.html "$@"
echo "summary JSON written to replay.json, HTML report to replay.html"
if [[ -d build/python/kvsim ]]; then echo "Python module: PYTHONPATH=$PWD/build/python /usr/bin/python3 -c 'import kvsim'"; fi
