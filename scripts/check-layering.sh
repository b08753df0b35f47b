#!/usr/bin/env bash
# The layering check: reads every #include "..." of kvsim's sources and fails
#  1. on any include against the layer order of docs/ARCHITECTURE.md, and
#  2. on an include cycle between files of one layer: x.h and x.cpp count as one file x, and x
#     depends on y when either of x's includes y.h; a cycle x -> y -> ... -> x is reported whole;
#  3. on an include cycle between folders: folder F depends on folder G when a file directly in F
#     includes one directly in G (sim/engine -> sim/fleet); the cycle is reported with one include
#     per step, so a folder-level loop made of files that do not loop is still found.
# Usage: scripts/check-layering.sh [SOURCE_DIR]
#
#   layer        folder               may include
#   base         kvcache/base/        base
#   model        kvcache/model/       base model
#   budget       kvcache/budget/      base model budget
#   training     kvcache/training/    base model budget training
#   allocators   kvcache/             base model budget allocators
#   workloads    workloads/           base workloads
#   engine       sim/<concept>/       base model budget allocators workloads engine
#   reports      reports/             everything but cli
#   cli          cli/                 everything
#   python       python/              everything (the Python module runs the CLI's commands in-process)
#   tests, bench                      everything but cli (only the kvsim executable links the CLI)
#   tests/fuzz   (libFuzzer)          everything: the option-parsing targets call the CLI's entry points
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# Sets $layer (a function that sets a variable: no subshell per include).
layer_of() {
  case $1 in
    kvcache/base/*) layer=base ;;
    kvcache/model/*) layer=model ;;
    kvcache/budget/*) layer=budget ;;
    kvcache/training/*) layer=training ;;
    kvcache/offload/*) layer=allocators ;;
    kvcache/*/*) layer=unknown ;;
    kvcache/*) layer=allocators ;;
    workloads/*) layer=workloads ;;
    sim/*/*/*) layer=unknown ;;
    sim/*/*) layer=engine ;;
    reports/*) layer=reports ;;
    cli/*) layer=cli ;;
    python/*) layer=python ;;
    tests/fuzz/*) layer=fuzz ;;
    tests/*|bench/*) layer=harness ;;
    *) layer=unknown ;;
  esac
}

allowed() {  # allowed FROM_LAYER TO_LAYER
  local from=$1 to=$2
  case $from in
    base) [[ $to == base ]] ;;
    model) [[ $to =~ ^(base|model)$ ]] ;;
    budget) [[ $to =~ ^(base|model|budget)$ ]] ;;
    training) [[ $to =~ ^(base|model|budget|training)$ ]] ;;
    allocators) [[ $to =~ ^(base|model|budget|allocators)$ ]] ;;
    workloads) [[ $to =~ ^(base|workloads)$ ]] ;;
    engine) [[ $to =~ ^(base|model|budget|allocators|workloads|engine)$ ]] ;;
    reports) [[ $to != cli && $to != python && $to != harness ]] ;;
    cli) [[ $to != harness && $to != python ]] ;;
    python) [[ $to != harness ]] ;;
    harness) [[ $to != cli && $to != python ]] ;;
    fuzz) [[ $to != unknown ]] ;;
    *) return 1 ;;
  esac
}

violations=0
edges=$(mktemp)
folder_edges=$(mktemp)
trap 'rm -f "$edges" "$edges.next" "$folder_edges" "$folder_edges.next"' EXIT
files=$(find kvcache workloads sim reports cli python tests bench \( -name "*.h" -o -name "*.cpp" \) 2>/dev/null | sort || true)
for f in $files; do
  layer_of "$f"
  from=$layer
  if [[ $from == unknown ]]; then
    echo "$f: not in any layer's folder (see docs/ARCHITECTURE.md)"
    violations=$((violations + 1))
    continue
  fi
  while IFS=: read -r line target; do
    [[ -z $target ]] && continue
    [[ $target == tests/* ]] && continue  # test helpers
    layer_of "$target"
    to=$layer
    if ! allowed "$from" "$to"; then
      echo "$f:$line: includes \"$target\" (layer $to) from layer $from: an include against the layer order"
      violations=$((violations + 1))
    fi
    if [[ $to == "$from" && ${f%.*} != "${target%.*}" ]]; then echo "${f%.*} ${target%.*}" >>"$edges"; fi
    if [[ ${f%/*} != "${target%/*}" ]]; then echo "${f%/*} ${target%/*} $f:$line" >>"$folder_edges"; fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done

# tsort orders the file graph and names the files of each loop it breaks; the check re-runs it with
# each reported loop's edges removed, so every cycle is named.
while true; do
  loop=$(sort -u "$edges" | tsort 2>&1 >/dev/null | awk '/input contains a loop/ { n++; next } n == 1 { sub(/^tsort: /, ""); print }' || true)
  [[ -z $loop ]] && break
  echo "include cycle between files of one layer: $(echo $loop | sed 's/ / -> /g') -> $(echo $loop | cut -d' ' -f1)"
  violations=$((violations + 1))
  first=$(echo $loop | cut -d' ' -f1)
  grep -v "^$first " "$edges" >"$edges.next" || true
  mv "$edges.next" "$edges"
done

# The same for folders; each step of a reported loop names one include that makes it.
while true; do
  loop=$(cut -d' ' -f1,2 "$folder_edges" | sort -u | tsort 2>&1 >/dev/null |
         awk '/input contains a loop/ { n++; next } n == 1 { sub(/^tsort: /, ""); print }' || true)
  [[ -z $loop ]] && break
  read -r -a dirs <<<"$(echo $loop)"
  path="" steps=""
  for ((i = 0; i < ${#dirs[@]}; i++)); do
    a=${dirs[i]} b=${dirs[(i + 1) % ${#dirs[@]}]}
    path+="$a -> "
    steps+="; $(awk -v a="$a" -v b="$b" '$1 == a && $2 == b { print $3; exit }' "$folder_edges") ($a -> $b)"
  done
  echo "include cycle between folders: $path${dirs[0]}$steps"
  violations=$((violations + 1))
  grep -v "^${dirs[0]} " "$folder_edges" >"$folder_edges.next" || true
  mv "$folder_edges.next" "$folder_edges"
done

if ((violations)); then
  echo "layering check: $violations violation(s)"
  exit 1
fi
echo "layering check: $(wc -w <<<"$files") files, every include points down the layer order, no include cycle between files or folders"
