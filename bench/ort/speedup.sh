#!/usr/bin/env bash
# Predicted vs measured speedup of `wolong optimize --target ort` in ONNX
# Runtime 1.30, over every shared model where --target ort changes
# anything (the ort pass rewrote at least one fused group) and ORT runs
# the original with the inputs of testdata/ort/manifest.json.
#
#   bench/ort/speedup.sh [OUTDIR] [--max-seconds S]
#
# 1. optimize -O3 --target ort --hw $HW (default cpu-1t) --emit-onnx, per model;
# 2. one measuring run of the harness (internal/ortbench/js/measure.mjs:
#    one thread, graph optimizations disabled, profiling off) over all
#    originals and emitted models, in alternating passes (--passes 4: each
#    pass measures every model in turn, a model beside its export, and each
#    keeps its lowest pass median, so a slow spell of this shared machine
#    seldom decides a ratio); S seconds per model (default 3);
# 3. wolong validate MODEL --optimized OUT --ort-latency MODEL.json,OUT.json
#    per pair: predicted and measured speedup, the error, and whether ORT
#    gives both the same outputs.
# Prints the table and the MAPE and writes OUTDIR/speedup.json (the table,
# with the conditions) beside the latency records. Committing OUTDIR as
# testdata/measured/speedup lets `go test ./cmd -run CommittedSpeedups`
# check the current predictions against these measurements without node.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-$(mktemp -d)}
shift || true
secs=3
if [ "${1:-}" = "--max-seconds" ]; then secs=$2; fi
HW=${HW:-cpu-1t}
command -v node >/dev/null || { echo "speedup.sh: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
command -v jq >/dev/null || { echo "speedup.sh: jq is not installed" >&2; exit 2; }
. bench/ort/lib.sh
ort_install
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/models"
go build -o "$work/wolong" .
W=$work/wolong
models=$root/../shared/models
echo '{"models": [' >"$work/spec.json"
sep=""
for rel in $(jq -r '.models[].model' testdata/ort/manifest.json); do
	[ -f "$models/$rel" ] || continue
	name=$(echo "${rel%.onnx}" | tr / _)
	opt=$work/models/$name.ort.onnx
	if ! "$W" optimize "$models/$rel" -O3 --target ort --hw "$HW" --emit-onnx "$opt" --format json >"$work/opt.json" 2>"$work/err"; then
		echo "left out $rel: optimize failed: $(head -c 200 "$work/err")"
		continue
	fi
	if [ "$(jq '[.passes[] | select(.name == "ort") | .rewrites] | add // 0' "$work/opt.json")" = 0 ]; then
		rm -f "$opt"
		continue
	fi
	inputs=$(jq -c --arg m "$rel" '.models[] | select(.model == $m) | .inputs' testdata/ort/manifest.json)
	printf '%s{"model": "%s", "inputs": %s, "out": "%s.json"},\n{"model": "%s", "inputs": %s, "out": "%s.ort.json"}\n' "$sep" "$rel" "$inputs" "$name" "$opt" "$inputs" "$name" >>"$work/spec.json"
	sep=","
	echo "$rel $name" >>"$work/pairs"
done
echo ']}' >>"$work/spec.json"
echo "measuring $(wc -l <"$work/pairs") model pairs, in 4 alternating passes, ${secs}s per model ..."
WOLONG_ORT_HOME=$root/bench/ort node internal/ortbench/js/measure.mjs "$out" --spec "$work/spec.json" --passes 4 --max-seconds "$secs" --threads 1 --level disabled |
	grep ERROR || true
echo
printf '%-50s %10s %10s %9s %9s %8s %s\n' model orig_ms ort_ms predicted measured error outputs
: >"$work/rows.jsonl"
while read -r rel name; do
	if [ ! -f "$out/$name.json" ] || [ ! -f "$out/$name.ort.json" ]; then
		echo "left out $rel: ONNX Runtime did not run it (see the ERROR lines above)"
		rm -f "$out/$name.json" "$out/$name.ort.json"
		continue
	fi
	if ! "$W" validate "$models/$rel" --optimized "$work/models/$name.ort.onnx" --hw "$HW" \
		--ort-latency "$out/$name.json,$out/$name.ort.json" --format json >"$work/v.json" 2>"$work/err"; then
		if ! jq -e . "$work/v.json" >/dev/null 2>&1; then
			echo "left out $rel: $(head -c 200 "$work/err")"
			continue
		fi
	fi
	nodes=$("$W" inspect "$work/models/$name.ort.onnx" --format json | jq '.nodes')
	jq -c --arg m "$rel" --argjson n "$nodes" '{model: $m, optimized_nodes: $n, predicted_ms, predicted_optimized_ms, measured_ms, measured_optimized_ms, predicted_speedup, measured_speedup, error_pct, outputs_equal}' "$work/v.json" >>"$work/rows.jsonl"
	jq -r --arg m "$rel" '"\($m)\t\(.measured_ms)\t\(.measured_optimized_ms)\t\(.predicted_speedup)\t\(.measured_speedup)\t\(.error_pct)\t\(.outputs_equal)"' "$work/v.json" |
		awk -F'\t' '{printf "%-50s %10.3f %10.3f %8.3fx %8.3fx %+7.1f%% %s\n", $1, $2, $3, $4, $5, $6, ($7 == "true" ? "equal" : ($7 == "false" ? "DIFFER" : "not checked"))}'
done <"$work/pairs"
host=$(jq -r '.host.cpu' "$(ls "$out"/*.ort.json | head -1)")
jq -s --arg hw "$HW" --arg host "$host" --arg date "$(date -u +%Y-%m-%dT%H:%MZ)" --arg secs "$secs" --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	'{hardware: $hw, ort: "1.30.0", threads: 1, graph_optimization: "disabled", measured: ("4 alternating passes, lowest pass medians, " + $secs + " s per model"),
	  host: $host, date: $date, wolong_commit: $commit, models: ., mape_pct: ((map(.error_pct | fabs) | add) / length)}' "$work/rows.jsonl" >"$out/speedup.json"
jq -r '"\n\(.models | length) models: speedup MAPE \(.mape_pct * 10 | round / 10)% (predicted on \(.hardware) vs measured in ONNX Runtime \(.ort), 1 thread, optimizations disabled); outputs equal on \([.models[] | select(.outputs_equal == true)] | length), differ on \([.models[] | select(.outputs_equal == false)] | length); emitted model slower than the original on \([.models[] | select(.measured_speedup < 1)] | length)"' "$out/speedup.json"
echo "latency records and speedup.json in $out"
