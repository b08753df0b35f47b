#!/usr/bin/env bash
# Renders the replay's HTML report in headless Chromium (Debian's chromium package): the page must
# load without console errors, every chart must have non-empty paths in the rendered DOM, and a
# screenshot is saved (tests/browser/out/report.png in the build tree) for people to look at. It
# renders the report of the README's main command (kvsim replay with its defaults).
# Usage: report_in_chromium.sh KVSIM_BINARY OUTPUT_DIR
set -euo pipefail
bin=$1
out=$2
mkdir -p "$out"
chrome=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chrome ]]; then echo "chromium not installed (scripts/install-deps.sh --tests installs it)"; exit 1; fi
"$bin" replay --quiet --omit-wall-time \
  --report "$out/report.html" --json "$out/report.json"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$out/profile" --enable-logging=stderr --v=0)
timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$out/report.html" > "$out/dom.html" 2> "$out/console.log"
timeout 120 "$chrome" "${flags[@]}" --window-size=1100,2700 --screenshot="$out/report.png" "file://$out/report.html" \
  >> "$out/console.log" 2>&1
if grep -E "CONSOLE|Uncaught" "$out/console.log" | grep -qiE "error|uncaught"; then
  echo "console errors:"; grep -E "CONSOLE|Uncaught" "$out/console.log"; exit 1
fi
charts=$(grep -o '<svg[^>]*class="chart"' "$out/dom.html" | wc -l)
paths=$(grep -oE '<path class="(area|line)" d="M[0-9]' "$out/dom.html" | wc -l)
empty=$(grep -c 'd=""' "$out/dom.html" || true)
size=$(stat -c %s "$out/report.png")
echo "rendered: $charts charts, $paths non-empty paths, $empty empty paths, screenshot $size bytes"
[[ $charts -eq 7 && $paths -ge 11 && $empty -eq 0 && $size -gt 20000 ]]
