#!/usr/bin/env bash
# Writes the generated control-flow models (internal/modelgen
# ControlFlowModels) into a scratch folder, or takes the models given, and
# prints per model: ONNX Runtime 1.30's node count at its 'extended'
# optimization level (CPU), and wolong's after -O3 (the --emit-onnx model),
# both counting the nodes of the main graph and of every If/Loop/Scan body
# (bench/controlflow count); then wolong's predicted kernels per run (a
# body's kernels per executed iteration and branch). The issue-30 check is
# wolong_O3_nodes <= ort_extended_nodes on every model. Needs node (the
# harness is installed as bench/ort/lib.sh does). With no models given it
# also adds the shared models with control flow and writes the table to
# testdata/ort/controlflow_nodes_vs_ort.tsv, which TestControlFlowVsORT
# (cmd) checks the current optimizer against without node.
#
#   bench/controlflow/check.sh [MODEL.onnx ...]
set -uo pipefail
cd "$(dirname "$0")"
. ../ort/lib.sh
command -v node >/dev/null || { echo "check.sh: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
ort_setup
go build -o "$work/cf" . || exit 1
models=("$@")
table=/dev/null
if [ ${#models[@]} -eq 0 ]; then
	mapfile -t models < <("$work/cf" "$work")
	for m in controlflow/burn_loop_nested controlflow/burn_loop_scan_outputs controlflow/burn_outer_scope_loop \
		controlflow/burn_scan_multi_state controlflow/occ_test_subgraph_if_castlike rnn/kinference_pos_tagger_lstm_loop \
		rnn/silero_vad_16k_op15 rnn/silero_vad_half rnn/silero_vad_micro_2021 rnn/silero_vad_mini_2021 \
		rnn/silero_vad_v3.1_transformer_lstm rnn/silero_vad_v5 rnn/silero_vad_v6.2 rnn/tract_qlstm_3-2-3_T3_S1_scan; do
		models+=("$repo/../shared/models/$m.onnx")
	done
	table=$repo/testdata/ort/controlflow_nodes_vs_ort.tsv
fi
printf "model\tort_extended_nodes\twolong_O3_nodes\twolong_O3_kernels_per_run\n" | tee "$table.tmp"
for m in "${models[@]}"; do
	b=$(basename "$m" .onnx)
	line=$(cd "$ort_dir" && OUT_DIR="$work" node ort_nodes.mjs "$m")
	opt=${line#*$'\t'}
	ort=n/a
	case "$opt" in FAIL*) ;; *) ort=$("$work/cf" count "$opt" | cut -f2) ;; esac
	k=$("$work/wolong" optimize -O3 "$m" --emit-onnx "$work/$b.O3.onnx" --format json 2>/dev/null |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).emitted.kernels)}catch(e){console.log("")}})')
	w=$("$work/cf" count "$work/$b.O3.onnx" 2>/dev/null | cut -f2)
	case "$m" in "$work"/*) name=generated/$b ;; *) name=${m#"$repo/../shared/models/"} ;; esac
	printf "%s\t%s\t%s\t%s\n" "$name" "$ort" "${w:-n/a}" "${k:-n/a}" | tee -a "$table.tmp"
done
[ "$table" = /dev/null ] || mv "$table.tmp" "$table"
