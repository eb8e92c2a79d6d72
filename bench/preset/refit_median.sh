#!/usr/bin/env bash
# Refits kept calibrate --host measurements with the current code and
# builds a preset entry from their per-parameter median (median_fit.py):
# how cpu-1t-xeon is brought to a changed cost model or fit without new
# measurements (docs/calibration-protocol.md, "cpu-1t on the Intel VM").
#
#   CLOCK_GHZ=2.6 bench/preset/refit_median.sh OUTDIR NAME VARIANT_OF "WHAT" SUITE_DIR...
#
# SUITE_DIR: folders written by calibrate --host --keep (or heldout_check.sh's
# suiteA/suiteB). Each is refit once (one thread) into OUTDIR/<n>.json and
# .out (the fit as JSON, with per-model residuals); a fit already in OUTDIR
# is kept. Prints each fit's MAPE on the suite models it was fitted on and
# those it held back, and writes the entry to OUTDIR/median.json.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 2,13p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 name=$2 variant=$3 what=$4
shift 4
mkdir -p "$out"
bin=$(mktemp -d)/wolong
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go build -o "$bin" .)
fits=()
i=0
for d in "$@"; do
	i=$((i + 1))
	f=$out/$i.json
	if [ ! -s "$f" ]; then
		"$bin" calibrate --host --from "$d" --no-save --threads 1 -o "$f" --format json >"$out/$i.out"
	fi
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["fits"][0]; print("%s: %.1f%% fitted on, %.1f%% held back" % (sys.argv[2], d["train_mape_pct"], d["held_out_mape_pct"]))' "$out/$i.out" "$d"
	fits+=("$f")
done
python3 "$root/bench/preset/median_fit.py" "$name" "$variant" "$what" "${fits[@]}" >"$out/median.json"
echo "wrote $out/median.json"
