#!/usr/bin/env bash
# Growth of every pipeline stage and pass on every benchmark shape (issue
# 25 item 2): pipeline.BenchmarkDoublingShapes runs import, infer, each
# pass, simulate, report and export on each shape of modelgen.Shapes at N
# and 2N nodes (the fastest of 3 runs each) and reports each stage's
# ratio; this runs it for each N given and prints one line per shape and
# stage with its ratio at each N, worst last column first, flagging those
# above the bound (2.3x: linear is 2, quadratic 4).
#
# The stages run with the collector isolated (a full collection, untimed,
# before each stage and each pass, the collector paused within it;
# pipeline.stageTimesGC): a ratio is the stage's own growth, not the share
# of the collector's marking that fell into it. "gc-between-stages" is
# those collections' growth and "whole" the whole pipeline as a command
# runs it, collector included (WOLONG_DOUBLING_GC=run times the stages
# that way too). Stages under 1 ms at N are left out (they say nothing
# about growth); a stage of a few ms moves by +-0.5 on a loaded machine:
# re-run a flagged one alone before believing it.
#
# Several N show how a stage's cost per node settles: on the 2-vCPU VMs
# measured so far it rises from 25k to 100k nodes (the graph outgrowing
# the core's caches and TLB reach; ratios of 2.4-3.9x) and is flat from
# 100k to 200k (docs/speed.md, "Growth").
#
#   bench/doubling.sh [N...]   (default 25000 50000 100000; WOLONG_DOUBLING_NODES)
#   BOUND=2.3 SHAPES='cnn|control' bench/doubling.sh 100000
set -euo pipefail
cd "$(dirname "$0")/.."
ns=${*:-${WOLONG_DOUBLING_NODES:-25000 50000 100000}}
bound=${BOUND:-2.3}
shapes=${SHAPES:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $ns; do
	WOLONG_DOUBLING_NODES=$n go test ./pipeline -run '^$' -bench "DoublingShapes/($shapes)" -benchtime 1x -timeout 120m >"$tmp/out"
	grep -q '^ok' "$tmp/out" || { cat "$tmp/out"; exit 1; }
	awk -v n="$n" '/^BenchmarkDoublingShapes\// {
		split($1, a, "/"); shape = a[2]; sub(/-[0-9]+$/, "", shape)
		for (i = 5; i < NF; i += 2) if ($(i + 1) ~ /^x2-/) print shape, substr($(i + 1), 4), n, $i
	}' "$tmp/out" >>"$tmp/ratios"
done
echo "stage ratios for N -> 2N nodes (N = $ns), collector ${WOLONG_DOUBLING_GC:-isolated}, load $(cut -d' ' -f1-3 /proc/loadavg), bound ${bound}x"
awk -v bound="$bound" -v ns="$ns" '
	{ r[$1 " " $2, $3] = $4; if (!(($1 " " $2) in seen)) { seen[$1 " " $2] = 1; keys[++k] = $1 " " $2 } }
	END {
		nn = split(ns, N, " ")
		printf "%-16s %-24s", "shape", "stage"
		for (j = 1; j <= nn; j++) printf " %10s", "x2@" N[j]
		printf "\n"
		for (i = 1; i <= k; i++) {
			split(keys[i], s, " ")
			printf "%-16s %-24s", s[1], s[2]
			over = 0
			for (j = 1; j <= nn; j++) {
				v = r[keys[i], N[j]]
				if (v == "") printf " %10s", "-"
				else { printf " %9.2fx", v; if (v > bound) over++ }
			}
			printf "%s\n", over ? "  OVER" : ""
		}
	}' "$tmp/ratios" | { read -r head; echo "$head"; sort -k"$(( $(wc -w <<<"$ns") + 2 ))" -g -r; }
