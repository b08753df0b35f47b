#!/bin/sh
# The feature scorer itself: a feature kvsim treats as free scores 0 (never 1), a set below its recorded
# floor fails --floor, and a malformed row is refused with exit 2 naming the file, line and field.
# usage: score_features_test.sh SOURCE_DIR KVSIM PYTHON3
set -u
src=$1 kvsim=$2 py=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# One row whose "feature" is the default seed spelled out: it changes nothing, so the published 10% loss
# scores 0.
mkdir -p "$dir/sets/free"
cat > "$dir/sets/free/cases.csv" <<'CSV'
id,metric,effect,common,base,feature,trace_base,trace_feature,measured
free,throughput.output_tokens_per_s,loss,--synthetic 5 --rate 1 --prompt-len fixed:100 --output-len fixed:10 --step-time-ms 10,,--seed 1,,,0.1
CSV
printf 'id,source\nfree,a test\n' > "$dir/sets/free/measured.csv"
printf '{"median_ratio": 1.0, "within_25": 1.0, "rows": 1}\n' > "$dir/sets/free/floor.json"
out=$("$py" "$src/scripts/score_features.py" "$kvsim" --sets-dir "$dir/sets" --floor 2>&1)
rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "a set below its floor exits 1 under --floor, got $rc"
echo "$out" | grep -q "ratio 0.000" || fail "a feature that changes nothing scores 0"
echo "$out" | grep -q "REGRESSION" || fail "the regression is named"

# A malformed effect: exit 2, the file, line and field named.
mkdir -p "$dir/sets/bad"
sed 's/,loss,/,lost,/' "$dir/sets/free/cases.csv" > "$dir/sets/bad/cases.csv"
cp "$dir/sets/free/measured.csv" "$dir/sets/bad/"
out=$("$py" "$src/scripts/score_features.py" "$kvsim" --sets-dir "$dir/sets" --set bad 2>&1)
rc=$?
echo "$out"
[ $rc -eq 2 ] || fail "a malformed row exits 2, got $rc"
echo "$out" | grep -q "bad/cases.csv: line 2: field effect" || fail "the file, line and field are named"
echo "PASS"
