#!/usr/bin/env bash
# The layering check on small trees made here: two files of one layer that include each other
# fail it (the cycle is named), folders whose files include each other's fail it though no file
# loops (the folder cycle is named with its includes), an include up the layer order fails it, and
# the same files with the includes pointing one way pass. Usage: layering_check_test.sh SOURCE_DIR
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

tree "$work/folder_cycle"  # sim/stats/a.h -> sim/fleet/c.h -> sim/engine/d.h; sim/engine/e.h -> sim/stats/b.h
mkdir -p "$work/folder_cycle/sim/fleet" "$work/folder_cycle/sim/engine"
printf '#include "sim/fleet/c.h"\n' >>"$work/folder_cycle/sim/stats/a.h"
printf '#include "sim/engine/d.h"\n' >"$work/folder_cycle/sim/fleet/c.h"
printf '// d\n' >"$work/folder_cycle/sim/engine/d.h"
printf '#include "sim/stats/b.h"\n' >"$work/folder_cycle/sim/engine/e.h"
if out=$("$check" "$work/folder_cycle"); then fail "a cycle between three folders passed: $out"; fi
grep -q "include cycle between files" <<<"$out" && fail "no file loops, yet a file cycle was reported: $out"
cycle=$(grep "include cycle between folders" <<<"$out") || fail "the folder cycle is not reported: $out"
for step in "sim/stats/a.h:2 (sim/stats -> sim/fleet)" "sim/fleet/c.h:1 (sim/fleet -> sim/engine)" \
            "sim/engine/e.h:1 (sim/engine -> sim/stats)"; do
  grep -qF "$step" <<<"$cycle" || fail "the folder cycle does not name the include $step: $cycle"
done
[[ $(grep -c "include cycle between folders" <<<"$out") == 1 ]] || fail "one folder cycle reported more than once: $out"
echo "folder cycle: $cycle"
rm "$work/folder_cycle/sim/engine/e.h"  # the same folders pointing one way
out=$("$check" "$work/folder_cycle") || fail "folders pointing one way failed: $out"

tree "$work/upward"
printf '#include "sim/stats/a.h"\n' >>"$work/upward/kvcache/base/units.h"
if out=$("$check" "$work/upward"); then fail "an include up the layer order passed: $out"; fi
grep -q 'includes "sim/stats/a.h" (layer engine) from layer base' <<<"$out" || fail "the upward include is not named: $out"
echo "layering check tests: 5 passed, 0 failed"
