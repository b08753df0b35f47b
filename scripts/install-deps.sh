#!/usr/bin/env bash
# Installs the Debian packages kvsim builds with, if any are missing. Needs root (or sudo) and apt.
# Usage: scripts/install-deps.sh [--tests]   (--tests adds GoogleTest and Google Benchmark)
set -euo pipefail
packages=(cmake g++ make libboost-program-options-dev libboost-dev libfccp-dev nlohmann-json3-dev)
# yaml-cpp: `vllm serve --config FILE.yaml` read as vLLM reads it.
packages+=(libyaml-cpp-dev)
# Open MPI: `mpirun -np N kvsim sweep` across ranks (optional for the build; installed so both commands build with it).
packages+=(libopenmpi-dev openmpi-bin)
# `import kvsim` (python/): Python's headers and pybind11 (optional for the build; installed so the README's
# first command builds the module too).
packages+=(python3-dev pybind11-dev)
# --tests: GoogleTest, Google Benchmark, Chromium for the HTML report's browser test, and clang with
# libclang-rt-dev (libFuzzer and the sanitizer runtimes) for the fuzz stage, lld (links the sanitized
# build), pytest for the Python module's tests.
if [[ ${1:-} == --tests ]]; then packages+=(libgtest-dev libbenchmark-dev chromium clang libclang-rt-dev lld python3-pytest); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
