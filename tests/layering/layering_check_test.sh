#!/usr/bin/env bash
# The layering check on small trees made here: two files of one layer that include each other
# fail it (the cycle is named), an include up the layer order fails it, and the same files with
# the includes pointing one way pass. Usage: layering_check_test.sh SOURCE_DIR
set -euo pipefail
check=$1/scripts/check-layering.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tree() {  # tree DIR: engine files a.h/a.cpp and b.h, a base file
  mkdir -p "$1/sim/stats" "$1/kvcache/base"
  printf '#include "kvcache/base/units.h"\n' >"$1/sim/stats/b.h"
  printf '#include "sim/stats/b.h"\n' >"$1/sim/stats/a.h"
  printf '#include "sim/stats/a.h"\n' >"$1/sim/stats/a.cpp"
  printf '// units\n' >"$1/kvcache/base/units.h"
}

tree "$work/clean"
out=$("$check" "$work/clean") || fail "a tree without cycles failed: $out"
echo "clean tree: $out"

tree "$work/cycle"
printf '#include "sim/stats/a.h"\n' >>"$work/cycle/sim/stats/b.h"  # b -> a -> b
if out=$("$check" "$work/cycle"); then fail "a cycle between two files of one layer passed: $out"; fi
grep -q "include cycle between files of one layer: sim/stats/a -> sim/stats/b -> sim/stats/a" <<<"$out" ||
  fail "the cycle is not named: $out"
echo "cycle: $(grep cycle <<<"$out")"

tree "$work/cycle_via_cpp"
printf '#include "sim/stats/a.h"\n' >"$work/cycle_via_cpp/sim/stats/b.cpp"  # a.h -> b.h; b.cpp -> a.h
if out=$("$check" "$work/cycle_via_cpp"); then fail "a cycle through a .cpp passed: $out"; fi
echo "cycle through a .cpp: $(grep cycle <<<"$out")"

tree "$work/upward"
printf '#include "sim/stats/a.h"\n' >>"$work/upward/kvcache/base/units.h"
if out=$("$check" "$work/upward"); then fail "an include up the layer order passed: $out"; fi
grep -q 'includes "sim/stats/a.h" (layer engine) from layer base' <<<"$out" || fail "the upward include is not named: $out"
echo "layering check tests: 4 passed, 0 failed"
