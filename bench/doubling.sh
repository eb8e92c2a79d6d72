#!/usr/bin/env bash
# Growth of every pipeline stage and pass on every benchmark shape (issue
# 25 item 2): pipeline.BenchmarkDoublingShapes runs import, infer, each
# pass, simulate, report and export on each shape of modelgen.Shapes at N
# and 2N nodes (the fastest of 3 runs each) and reports each stage's
# ratio; this prints them one per line, worst first, and flags those above
# the bound (2.3x: linear is 2, quadratic 4). Stages under 1 ms at N are
# left out (they say nothing about growth); ratios of stages of a few ms
# move by +-0.5 on a loaded machine: re-run a flagged one alone before
# believing it.
#
#   bench/doubling.sh [N]      (default 50000; WOLONG_DOUBLING_NODES)
#   BOUND=2.3 bench/doubling.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-${WOLONG_DOUBLING_NODES:-50000}}
bound=${BOUND:-2.3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
WOLONG_DOUBLING_NODES=$n go test ./pipeline -run '^$' -bench 'DoublingShapes' -benchtime 1x -timeout 60m >"$out"
echo "stage ratios for ${n} -> $((2 * n)) nodes, load $(cut -d' ' -f1-3 /proc/loadavg), bound ${bound}x"
awk -v bound="$bound" '/^BenchmarkDoublingShapes\// {
	split($1, a, "/"); shape = a[2]; sub(/-[0-9]+$/, "", shape)
	for (i = 5; i < NF; i += 2) if ($(i + 1) ~ /^x2-/) {
		name = substr($(i + 1), 4)
		printf "%-12s %-24s %6.2fx%s\n", shape, name, $i, ($i > bound ? "  OVER" : "")
	}
}' "$out" | sort -k3 -g -r
grep -q '^ok' "$out" || { cat "$out"; exit 1; }
