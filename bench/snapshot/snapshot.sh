#!/usr/bin/env bash
# Writes what wolong prints for every shared model, as --format json, into
# OUTDIR: inspect, profile (h100 and cpu-1t), optimize and explain, one file
# per command and model. Two snapshots taken before and after a refactor
# show whether it changed any output (diff -r A B), the check of wolong
# issue 18 ("behaviour unchanged").
#
#   bench/snapshot/snapshot.sh OUTDIR [MODELS_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
models=${2:-../shared/models}
mkdir -p "$out"
bin=$(mktemp -d)/wolong
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" .
find "$models" -name '*.onnx' | sort | while read -r m; do
	name=$(echo "${m#$models/}" | sed 's|/|__|g; s|\.onnx$||')
	for cmd in "inspect" "profile --hw h100" "profile --hw cpu-1t" "optimize" "explain"; do
		tag=$(echo "$cmd" | tr ' ' '_' | sed 's/--hw_//')
		# stderr (warnings, errors) is kept beside: a refactor must not change it either
		"$bin" $cmd "$m" --format json >"$out/$name.$tag.json" 2>"$out/$name.$tag.err" || echo "exit $?" >>"$out/$name.$tag.err"
	done
done
echo "wrote $(ls "$out" | wc -l) files to $out"
