#!/usr/bin/env bash
# The docs checks themselves: check-docs fails on an output that differs from the one shown, on a
# command hidden in another kind of block and on a no-run block without a reason, and --update
# rewrites a stale output so that the check then passes; the flag-reference check fails, naming the
# flag, on a page missing one.
#
# Usage: check_docs_test.sh REPO KVSIM_BINARY SHARED_DIR
set -euo pipefail
repo=$1 kvsim=$2 shared=$3
check=("${KVSIM_PYTHON3:-python3}" "$repo/scripts/check-docs.py" --kvsim "$kvsim" --repo "$repo" --shared "$shared")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A stale output: the check fails and names the file, the line and the command.
cat > "$dir/stale.md" <<'MD'
# stale

```console
$ kvsim gpus | grep '^h100 '
h100            NVIDIA H100 80GB SXM5       99.99           80  3.350        989.4      1978.9  nvls
```
MD
if "${check[@]}" "$dir/stale.md" > "$dir/out" 2>&1; then fail "a stale output passed"; fi
grep -q "stale.md:4: the output of \`kvsim gpus | grep '^h100 '\` differs" "$dir/out" || { cat "$dir/out"; fail "no file:line for the stale output"; }

# --update rewrites it; then the check passes, and the rewritten line is kvsim's.
"${check[@]}" --update "$dir/stale.md" > /dev/null
"${check[@]}" "$dir/stale.md" > /dev/null || fail "the check fails right after --update"
grep -q '^h100 .*79.11' "$dir/stale.md" || fail "--update did not write the printed output"

# An exit status other than 0 is part of the output.
printf '```console\n$ kvsim capacity --gpu no-such-gpu 2>/dev/null\n```\n' > "$dir/exit.md"
"${check[@]}" --update "$dir/exit.md" > /dev/null
grep -qx '\[exit 2\]' "$dir/exit.md" || fail "a failing command's exit status is not shown"

# A command in a block of another kind, and a no-run block without a reason, are errors.
printf '```sh\n$ kvsim gpus\n```\n' > "$dir/hidden.md"
if "${check[@]}" "$dir/hidden.md" > "$dir/out" 2>&1; then fail "a command in a sh block passed"; fi
grep -q "hidden.md:2: a '\$ ' command in a \`\`\`sh block" "$dir/out" || { cat "$dir/out"; fail "the hidden command is not named"; }
printf '```console no-run\n$ kvsim gpus\n```\n' > "$dir/noreason.md"
if "${check[@]}" "$dir/noreason.md" > /dev/null 2>&1; then fail "a no-run block without a reason passed"; fi

# The flag reference: a page missing a flag fails its check, which names the flag and its commands.
grep -v -- '--max-lora-rank' "$repo/docs/reference/flags.md" > "$dir/flags.md"
if "$repo/scripts/gen-flag-reference.sh" --check "$kvsim" "$dir/flags.md" > "$dir/out" 2>&1; then
  fail "a flag reference without --max-lora-rank passed"
fi
grep -q '^  kvsim capacity --max-lora-rank$' "$dir/out" || { cat "$dir/out"; fail "the missing flag is not named"; }

echo "check-docs catches stale outputs, hidden commands and no-run blocks without a reason;"
echo "the flag-reference check names a flag missing from the page"
