#!/usr/bin/env bash
# Compares kvsim's capacity model with memory figures that real vLLM servers printed at start-up.
# Prints one row per log and a summary line; exits 1 when fewer than the required share of rows
# fall within tolerance (weights 2%, KV cache GiB and GPU KV cache tokens 5%).
#
#   scripts/validate-vllm-logs.sh                       # the bundled data/validation table
#   scripts/validate-vllm-logs.sh --logs my_logs.csv --configs dir_of_org__name_json
#
# KVSIM_BIN selects the binary (default: build/kvsim next to this script's checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${KVSIM_BIN:-$here/build/kvsim}
if [[ ! -x $bin ]]; then
  echo "validate-vllm-logs: $bin not found; build first (see README) or set KVSIM_BIN" >&2
  exit 2
fi
exec "$bin" validate "$@"
