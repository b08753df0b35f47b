#!/usr/bin/env bash
# The layering check: reads every #include "..." of kvsim's sources and fails on any include
# against the layer order of docs/ARCHITECTURE.md. Usage: scripts/check-layering.sh [SOURCE_DIR]
#
#   layer        folder            may include
#   base         kvcache/base/     base
#   model        kvcache/model/    base model
#   budget       kvcache/budget/   base model budget
#   allocators   kvcache/          base model budget allocators
#   workloads    workloads/        base workloads
#   engine       sim/              base model budget allocators workloads engine
#   reports      reports/          everything but cli
#   cli          sim/cli/          everything
#   tests, bench                   everything but cli (only the kvsim executable links the CLI)
#   tests/fuzz   (libFuzzer)       everything: the option-parsing targets call the CLI's entry points
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

layer_of() {
  case $1 in
    kvcache/base/*) echo base ;;
    kvcache/model/*) echo model ;;
    kvcache/budget/*) echo budget ;;
    kvcache/*/*) echo unknown ;;
    kvcache/*) echo allocators ;;
    workloads/*) echo workloads ;;
    sim/cli/*) echo cli ;;
    sim/*/*) echo unknown ;;
    sim/*) echo engine ;;
    reports/*) echo reports ;;
    tests/fuzz/*) echo fuzz ;;
    tests/*|bench/*|fuzz/*) echo harness ;;
    *) echo unknown ;;
  esac
}

allowed() {  # allowed FROM_LAYER TO_LAYER
  local from=$1 to=$2
  case $from in
    base) [[ $to == base ]] ;;
    model) [[ $to =~ ^(base|model)$ ]] ;;
    budget) [[ $to =~ ^(base|model|budget)$ ]] ;;
    allocators) [[ $to =~ ^(base|model|budget|allocators)$ ]] ;;
    workloads) [[ $to =~ ^(base|workloads)$ ]] ;;
    engine) [[ $to =~ ^(base|model|budget|allocators|workloads|engine)$ ]] ;;
    reports) [[ $to != cli && $to != harness ]] ;;
    cli) [[ $to != harness ]] ;;
    harness) [[ $to != cli ]] ;;
    fuzz) [[ $to != unknown ]] ;;
    *) return 1 ;;
  esac
}

violations=0
files=$(find kvcache workloads sim reports tests bench fuzz \( -name "*.h" -o -name "*.cpp" \) 2>/dev/null | sort || true)
for f in $files; do
  from=$(layer_of "$f")
  if [[ $from == unknown ]]; then
    echo "$f: not in any layer's folder (see docs/ARCHITECTURE.md)"
    violations=$((violations + 1))
    continue
  fi
  while IFS=: read -r line target; do
    [[ -z $target ]] && continue
    [[ $target == tests/* ]] && continue  # test helpers
    to=$(layer_of "$target")
    if ! allowed "$from" "$to"; then
      echo "$f:$line: includes \"$target\" (layer $to) from layer $from: an include against the layer order"
      violations=$((violations + 1))
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done
if ((violations)); then
  echo "layering check: $violations violation(s)"
  exit 1
fi
echo "layering check: $(wc -w <<<"$files") files, every include points down the layer order"
