#!/usr/bin/env bash
# Checks loopunroll's cost-model decisions in ONNX Runtime 1.30 on a CPU:
# for each generated control-flow model (internal/modelgen
# ControlFlowModels) and shared model where `optimize -O3 --target ort
# --hw $HW` (default cpu-1t) unrolls a loop, writes that export and the
# one with the loop rolled (--disable-pass loopunroll), predicts both
# (profile of the written model) and measures both (the harness's
# measure.mjs: 1 thread, graph optimizations disabled, profiling off, 4
# alternating passes, S seconds per model, lowest pass median), and
# prints per model: predicted and measured unrolled/rolled time ratios
# (< 1: unrolling pays). Models where nothing is unrolled (no candidate,
# or the trial kept the loop rolled) are only named: the CLI has no way
# to force the unrolling a trial refused (TestUnrollTrial in pipeline
# compares with the model unrolled regardless, on predictions).
#
#   bench/controlflow/unroll.sh [--max-seconds S]
set -uo pipefail
cd "$(dirname "$0")"
secs=3
if [ "${1:-}" = "--max-seconds" ]; then secs=$2; fi
HW=${HW:-cpu-1t}
. ../ort/lib.sh
command -v node >/dev/null || { echo "unroll.sh: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
command -v jq >/dev/null || { echo "unroll.sh: jq is not installed" >&2; exit 2; }
ort_setup
go build -o "$work/cf" . || exit 1
W=$work/wolong
mapfile -t models < <("$work/cf" "$work")
for m in controlflow/burn_loop_nested controlflow/burn_loop_scan_outputs controlflow/burn_outer_scope_loop \
	controlflow/burn_scan_multi_state rnn/kinference_pos_tagger_lstm_loop rnn/tract_qlstm_3-2-3_T3_S1_scan; do
	models+=("$repo/../shared/models/$m.onnx")
done
echo '{"models": [' >"$work/spec.json"
sep=""
: >"$work/pairs"
for m in "${models[@]}"; do
	b=$(basename "$m" .onnx)
	"$W" optimize "$m" -O3 --target ort --hw "$HW" --emit-onnx "$work/$b.unrolled.onnx" --format json >"$work/$b.json" 2>/dev/null || continue
	n=$(jq '[.passes[] | select(.name == "loopunroll") | .rewrites | length] | add // 0' "$work/$b.json")
	if [ "$n" = 0 ]; then
		echo "$b: no loop unrolled"
		continue
	fi
	"$W" optimize "$m" -O3 --target ort --hw "$HW" --disable-pass loopunroll --emit-onnx "$work/$b.rolled.onnx" >/dev/null 2>&1 || continue
	# the inputs at the sizes the predictions assume: symbolic dims 1
	in=$("$W" inspect "$m" --format json 2>/dev/null | jq -c '[.inputs[] | {name, dtype, shape: [.shape[] | if type == "number" then . else 1 end]}]')
	for v in unrolled rolled; do
		printf '%s{"model": "%s", "inputs": %s, "out": "%s.%s.json"}\n' "$sep" "$work/$b.$v.onnx" "$in" "$b" "$v" >>"$work/spec.json"
		sep=","
	done
	echo "$b" >>"$work/pairs"
done
echo ']}' >>"$work/spec.json"
echo "measuring $(wc -l <"$work/pairs") pairs in ONNX Runtime ($secs s per model, 4 alternating passes) ..."
(cd "$ort_dir" && WOLONG_ORT_HOME=$ort_dir node "$repo/internal/ortbench/js/measure.mjs" "$work/lat" --spec "$work/spec.json" \
	--passes 4 --max-seconds "$secs" --threads 1 --level disabled | grep ERROR)
printf '%-28s %12s %12s %10s %12s %12s %10s\n' model pred_unr_ms pred_rol_ms pred_ratio meas_unr_us meas_rol_us meas_ratio
while read -r b; do
	pu=$("$W" profile "$work/$b.unrolled.onnx" --hw "$HW" --format json 2>/dev/null | jq .total_ms)
	pr=$("$W" profile "$work/$b.rolled.onnx" --hw "$HW" --format json 2>/dev/null | jq .total_ms)
	mu=$(jq .median_us "$work/lat/$b.unrolled.json" 2>/dev/null)
	mr=$(jq .median_us "$work/lat/$b.rolled.json" 2>/dev/null)
	awk -v b="$b" -v pu="$pu" -v pr="$pr" -v mu="$mu" -v mr="$mr" 'BEGIN {
		printf "%-28s %12.4f %12.4f %10.3f %12.1f %12.1f %10.3f\n", b, pu, pr, pu / pr, mu, mr, (mr > 0 ? mu / mr : 0) }'
done <"$work/pairs"
