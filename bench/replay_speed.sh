#!/usr/bin/env bash
# Acceptance speed run: the Azure conversation trace tiled to 1,007,032 requests (--repeat 52),
# replayed on one core. Prints wall time, peak RSS, requests/s and events/s for each of 5 runs and
# the medians. Usage: bench/replay_speed.sh [extra kvsim replay flags]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${KVSIM_BIN:-$here/build/kvsim}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
walls=(); rss=()
for i in 1 2 3 4 5; do
  out=$( { /usr/bin/time -f "%e %M" taskset -c 0 "$bin" replay --repeat 52 --quiet --json "$json" "$@"; } 2>&1 )
  read -r wall kb <<<"$(tail -1 <<<"$out")"
  events=$(grep -o '"events": [0-9]*' "$json" | grep -o '[0-9]*$')
  requests=$(grep -o '"total": [0-9]*' "$json" | head -1 | grep -o '[0-9]*$')
  printf 'run %d: %.2f s wall, %d MB peak RSS, %.0f requests/s, %.1f M events/s\n' "$i" "$wall" $((kb / 1024)) \
    "$(echo "$requests / $wall" | bc -l)" "$(echo "$events / $wall / 1000000" | bc -l)"
  walls+=("$wall"); rss+=("$kb")
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
echo "median: $(median "${walls[@]}") s wall, $(( $(median "${rss[@]}") / 1024 )) MB peak RSS ($requests requests)"
