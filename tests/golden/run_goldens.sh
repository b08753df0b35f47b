#!/usr/bin/env bash
# Golden outputs: runs every case of cases.txt through the kvsim binary and compares what it
# writes (stdout, output files, the exit code; stderr only when the command fails) byte for byte
# with tests/golden/expected/<case>/. Absolute paths of the data and shared directories are
# replaced by <DATA> and <SHARED> first, so the goldens hold in any checkout.
#
#   tests/golden/run_goldens.sh KVSIM_BIN SHARED_DIR            # check (CTest runs this)
#   tests/golden/run_goldens.sh KVSIM_BIN SHARED_DIR --update   # rewrite the expected outputs
#
# Update only when a change of output is intended, and say why in the commit.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shared=$(cd "$2" && pwd)
mode=${3:-check}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
data=${KVSIM_DATA_DIR:-$src/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
while IFS='|' read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  dir=$work/$name
  mkdir -p "$dir"
  args=${args//\{DATA\}/$data}
  args=${args//\{SHARED\}/$shared}
  status=0
  (cd "$dir" && eval "\"$bin\" $args" >stdout 2>stderr) || status=$?
  echo "$status" >"$dir/exit"
  [[ $status -eq 0 ]] && rm -f "$dir/stderr"
  for f in "$dir"/*; do sed -i -e "s#$data#<DATA>#g" -e "s#$shared#<SHARED>#g" "$f"; done
  if [[ $mode == --update ]]; then
    rm -rf "$here/expected/$name"
    mkdir -p "$here/expected"
    cp -r "$dir" "$here/expected/$name"
  elif ! diff -r "$here/expected/$name" "$dir" >"$work/$name.diff"; then
    failed+=("$name")
    echo "golden case $name differs:"
    head -40 "$work/$name.diff"
  fi
done <"$here/cases.txt"
if ((${#failed[@]})); then
  echo "${#failed[@]} golden case(s) differ: ${failed[*]}"
  exit 1
fi
echo "golden outputs: all cases identical"
