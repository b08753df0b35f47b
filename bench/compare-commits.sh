#!/usr/bin/env bash
# Usage: bench/compare-commits.sh [--pairs N] [--core C] [--instructions] [--keep] <commit> [kvsim replay flags]
# Run by hand, not in CI: builds <commit> (Release, kvsim only, ccache) in a temporary git worktree
# beside this checkout, then times it and this checkout's build/kvsim (KVSIM_BIN to override) in
# alternating pairs on one pinned core, so that drift over a round of work shows as a ratio. Default
# run: the 1M-request replay of bench/replay_speed.sh (--repeat 52 --quiet); N = 9 pairs. Prints each
# pair's user+sys CPU seconds and wall seconds, the medians, and HEAD/base ratios; says whether the two
# JSON summaries agree (apart from paths). --instructions also counts both runs' instructions with
# callgrind on a smaller run (KVSIM_INSTR_FLAGS, default "--repeat 4 --quiet"), which unlike time is
# reliable on a loaded machine. --keep keeps the worktree and its build (at ../compare-<commit>) for
# the next comparison; KVSIM_BASE_BIN names an already built binary of <commit> instead. Pairs alternate which binary runs first, so a slow phase of the machine
# falls on both. For steadier wall times run under `nice -n -20` when permitted.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pairs=9 core=1 instructions=0 keep=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --pairs) pairs=$2; shift 2 ;;
    --core) core=$2; shift 2 ;;
    --instructions) instructions=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || { sed -n 2,2p "$0" >&2; exit 2; }
commit=$(git -C "$here" rev-parse --short "$1^{commit}") || { echo "compare-commits: no commit '$1'" >&2; exit 2; }
shift
flags=("$@")
[[ ${#flags[@]} -gt 0 ]] || flags=(--repeat 52 --quiet)
head_bin=${KVSIM_BIN:-$here/build/kvsim}
[[ -x $head_bin ]] || { echo "compare-commits: no HEAD binary at $head_bin (build target kvsim first)" >&2; exit 2; }

tmp=$(mktemp -d)
base_dir=$(dirname "$here")/compare-$commit
made_worktree=0
cleanup() {
  rm -rf "$tmp"
  if [[ $keep == 0 && $made_worktree == 1 ]]; then git -C "$here" worktree remove --force "$base_dir" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if [[ -n ${KVSIM_BASE_BIN:-} ]]; then
  base_bin=$KVSIM_BASE_BIN
else
  if [[ ! -d $base_dir ]]; then
    git -C "$here" worktree add --detach "$base_dir" "$commit" >/dev/null
    made_worktree=1
  fi
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  echo "building $commit in $base_dir ..."
  cmake -S "$base_dir" -B "$base_dir/build" -DCMAKE_BUILD_TYPE=Release -DKVSIM_BUILD_TESTS=OFF \
    -DKVSIM_BUILD_BENCHMARKS=OFF "${launcher[@]}" >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log" >&2; exit 1; }
  cmake --build "$base_dir/build" -j2 --target kvsim >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log" >&2; exit 1; }
  base_bin=$base_dir/build/kvsim
fi

# One run: prints "cpu wall" (user+sys and elapsed seconds) and leaves the JSON summary in $2.
run() {
  local bin=$1 json=$2 out
  out=$( { /usr/bin/time -f "%U %S %e" taskset -c "$core" "$bin" replay "${flags[@]}" --json "$json" >/dev/null; } 2>&1 )
  read -r user sys wall <<<"$(tail -1 <<<"$out")"
  echo "$(echo "$user + $sys" | bc -l) $wall"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "replay flags: ${flags[*]}; $pairs pairs on core $core (HEAD = $head_bin, base = $commit)"
head_cpu=() base_cpu=() head_wall=() base_wall=() ratios=()
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then
    read -r hc hw <<<"$(run "$head_bin" "$tmp/head.json")"
    read -r bc bw <<<"$(run "$base_bin" "$tmp/base.json")"
  else
    read -r bc bw <<<"$(run "$base_bin" "$tmp/base.json")"
    read -r hc hw <<<"$(run "$head_bin" "$tmp/head.json")"
  fi
  head_cpu+=("$hc") base_cpu+=("$bc") head_wall+=("$hw") base_wall+=("$bw")
  ratios+=("$(echo "$hc / $bc" | bc -l)")
  printf 'pair %d: HEAD %.2f s cpu (%.2f wall), %s %.2f s cpu (%.2f wall), ratio %.3f\n' "$i" "$hc" "$hw" "$commit" "$bc" "$bw" \
    "${ratios[-1]}"
done
hm=$(median "${head_cpu[@]}") bm=$(median "${base_cpu[@]}")
printf 'median cpu: HEAD %.2f s, %s %.2f s, ratio of medians %.3f, median of pair ratios %.3f\n' "$hm" "$commit" "$bm" \
  "$(echo "$hm / $bm" | bc -l)" "$(median "${ratios[@]}")"
printf 'median wall: HEAD %.2f s, %s %.2f s, ratio %.3f\n' "$(median "${head_wall[@]}")" "$commit" \
  "$(median "${base_wall[@]}")" "$(echo "$(median "${head_wall[@]}") / $(median "${base_wall[@]}")" | bc -l)"
# The summaries name their input and output paths and their own wall time; anything else differing
# is a change of results.
if diff <(grep -v '"/\|wall_s' "$tmp/head.json") <(grep -v '"/\|wall_s' "$tmp/base.json") >/dev/null; then
  echo "JSON summaries: identical apart from paths and wall time"
else
  echo "JSON summaries: DIFFER (diff <(grep -v '\"/' a.json) ... shows where)"
fi

if [[ $instructions == 1 ]]; then
  read -r -a iflags <<<"${KVSIM_INSTR_FLAGS:---repeat 4 --quiet}"
  for who in HEAD "$commit"; do
    bin=$head_bin
    [[ $who == HEAD ]] || bin=$base_bin
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$who" "$bin" replay "${iflags[@]}" >/dev/null 2>"$tmp/vg.log"
    printf '%s: %s instructions (callgrind, replay %s)\n' "$who" \
      "$(grep -m1 '^summary:' "$tmp/cg.$who" | awk '{print $2}')" "${iflags[*]}"
  done
fi
