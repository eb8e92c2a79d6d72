#!/usr/bin/env bash
# Calibrates a CPU preset on half of the shared models ONNX Runtime runs
# and validates the fit on the other half: predicted vs measured end-to-end
# latency per model, and the MAPE.
#
#   bench/calibrate_report.sh [PROFILE_DIR]
#
# PROFILE_DIR holds profiles written by bench/ort/profile.mjs (default: it
# profiles every model of testdata/ort/manifest.json into a temp dir first
# with bench/ort/profile.sh, which needs node and installs ONNX Runtime 1.30
# from npm; testdata/measured/cpu holds the last committed measurement).
# BASE picks the preset or hardware file calibrated (default cpu-1t: ORT
# runs on one thread). Profiles that do not match their
# model (wolong refuses them) are left out and listed. Models are split by
# sorted file name: even positions calibrate, odd positions validate.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-}
BASE=${BASE:-cpu-1t} # the preset calibrated: ORT runs on one thread
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$dir" ]; then
	dir=$work/profiles
	bench/ort/profile.sh "$dir" --max-seconds 4 --cpu-time
fi
go build -o "$work/wolong" .
W=$work/wolong
usable=()
for f in $(ls "$dir"/*.json | sort); do
	if "$W" validate --hw "$BASE" --ort-profile "$f" --format json "$(jq -r '.[0].args.model // empty' "$f" | sed 's|^|../shared/models/|')" >/dev/null 2>"$work/err"; then
		usable+=("$f")
	else
		echo "left out $(basename "$f"): $(head -c 200 "$work/err")"
	fi
done
cal=(); val=()
for i in "${!usable[@]}"; do
	if (( i % 2 == 0 )); then cal+=("${usable[$i]}"); else val+=("${usable[$i]}"); fi
done
args=()
for f in "${cal[@]}"; do args+=(--ort-profile "$f"); done
"$W" calibrate "${args[@]}" --base "$BASE" -o "$work/cpu-fit.json"
if [ -n "${FIT_OUT:-}" ]; then cp "$work/cpu-fit.json" "$FIT_OUT"; fi
echo
printf '%-58s %12s %12s %12s %9s %9s\n' model measured_ms base_ms fitted_ms base_err fit_err
sum_b=0; sum_f=0; n=0
for f in "${val[@]}"; do
	model=../shared/models/$(jq -r '.[0].args.model' "$f")
	b=$("$W" validate "$model" --hw "$BASE" --ort-profile "$f" --format json)
	a=$("$W" validate "$model" --hw "$work/cpu-fit.json" --ort-profile "$f" --format json)
	m=$(jq .measured_ms <<<"$a"); pb=$(jq .predicted_ms <<<"$b"); pa=$(jq .predicted_ms <<<"$a")
	eb=$(jq .error_pct <<<"$b"); ea=$(jq .error_pct <<<"$a")
	jq -c '.ops[]' <<<"$a" >>"$work/ops.jsonl"
	printf '%-58s %12.3f %12.3f %12.3f %+8.1f%% %+8.1f%%\n' "$(jq -r '.[0].args.model' "$f")" "$m" "$pb" "$pa" "$eb" "$ea"
	sum_b=$(awk -v s="$sum_b" -v e="$eb" 'BEGIN{print s + (e<0?-e:e)}')
	sum_f=$(awk -v s="$sum_f" -v e="$ea" 'BEGIN{print s + (e<0?-e:e)}')
	n=$((n+1))
done
awk -v base="$BASE" -v b="$sum_b" -v f="$sum_f" -v n="$n" -v c="${#cal[@]}" 'BEGIN{printf "\ncalibrated on %d models, validated on %d: end-to-end MAPE %.1f%% with the %s preset, %.1f%% calibrated (target: within 20%%)\n", c, n, b/n, base, f/n}'
echo
echo "validation models, per op type (calibrated; summed node times, largest measured first):"
jq -s -r 'group_by(.op) | map({op: .[0].op, n: (map(.nodes) | add), p: (map(.predicted_ms) | add), m: (map(.measured_ms) | add)})
	| sort_by(-.m) | .[:15][] | "\(.op)\t\(.n)\t\(.p)\t\(.m)"' "$work/ops.jsonl" |
	awk -F'\t' '{printf "  %-22s %5d nodes  predicted %10.3f ms  measured %10.3f ms  error %+7.1f%%\n", $1, $2, $3, $4, ($4 > 0 ? 100*($3-$4)/$4 : 0)}'
