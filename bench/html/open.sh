#!/usr/bin/env bash
# open.sh measures how fast the `wolong explain --html` page of a generated
# 10k-node model opens in headless chromium: it writes the model
# (go run ./bench/html), the page (wolong explain --html), then opens the
# page RUNS times (default 3) and prints the page's own "ready in" figure:
# performance.now() when its script has drawn everything (navigation,
# HTML and JSON parse, pass columns, timeline, tables, graph), with the
# time of each part and the number of DOM elements. Chromium's own start
# is not counted. Needs chromium (scripts/ensure-chromium.sh).
#
# Usage: bench/html/open.sh [NODES [RUNS]]
#
# Figures (2026-12-04, the 2-core shared dev machine under load: load
# average 15-21, runs under nice -n 15; Debian chromium, 1400x1000
# window): a 10045-node transformer (205 layers; -O3 leaves 1640 nodes),
# page 2.0 MB, about 4,400 DOM elements; ready in 0.7-2.3 s over 9 runs
# (the first, cold run of a series the slowest), of which the script
# 0.3-0.9 s (JSON parse 50-280 ms, pass columns 100-470 ms, timeline
# 30-110 ms, cost tables 20-180 ms, graph 60-180 ms) and the rest the
# browser's load of the 2 MB file. At 100k nodes (one run, same load):
# a 21 MB page, ready in 5.0 s (JSON parse 1.5 s). See the README's
# explain paragraph.
set -euo pipefail
cd "$(dirname "$0")/../.."
nodes=${1:-10000}
runs=${2:-3}
bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$bin" ]; then
  echo "open.sh: chromium not found (run scripts/ensure-chromium.sh)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/wolong" .
go run ./bench/html -o "$tmp/model.onnx" -nodes "$nodes"
start=$(date +%s.%N)
"$tmp/wolong" explain "$tmp/model.onnx" --html "$tmp/page.html" >"$tmp/explain.txt"
head -1 "$tmp/explain.txt"
echo "explain --html: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s wall; page $(stat -c %s "$tmp/page.html") bytes"
for i in $(seq "$runs"); do
  "$bin" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
    --window-size=1400,1000 --virtual-time-budget=10000 --dump-dom "file://$tmp/page.html" 2>"$tmp/log" >"$tmp/dom" || true
  status=$(grep -o '<span id="status"[^<]*</span>' "$tmp/dom" | sed -e 's/<span id="status" title="\([^"]*\)">\([^<]*\)<\/span>/\2: \1/' || true)
  errors=$(grep -o '<div id="errors">[^<]*</div>' "$tmp/dom" | sed -e 's/<[^>]*>//g' || true)
  echo "run $i: ${status:-no status (page did not finish)}${errors:+; ERRORS: $errors}"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
