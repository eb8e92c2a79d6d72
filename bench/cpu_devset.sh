#!/usr/bin/env bash
# The development-set check of wolong issue 29 (docs/calibration-protocol.md):
# the host-calibration suite and the 52 shared models ONNX Runtime runs,
# measured in one interleaved run (bench/hostcheck: a slow spell of the
# machine falls on both alike), a fit on the suite as calibrate --host
# makes it, and the fit's error on the shared models: all of them, and the
# models under 1.5 ms apart (the issue's "small models"). These are the
# development set: their errors guided changes to the cost model; the
# held-out families' figure is bench/cpu_heldout.sh.
#
#   bench/cpu_devset.sh DIR            # measure into DIR (~6 min quiet)
#   REFIT=1 bench/cpu_devset.sh DIR    # refit DIR, measured before
#
# To compare two versions of the fit on one measurement, run REFIT=1 from
# each version's worktree on the same DIR (copy it first: the fit writes
# DIR/local.json). Run it on a quiet machine: the suite's pass-to-pass
# noise is in the fit's "machine noise" line.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: bench/cpu_devset.sh DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/hostcheck" ./bench/hostcheck
go build -o "$work/wolong" .
if [ "${REFIT:-0}" = 1 ]; then
	"$work/hostcheck" -from "$dir" >"$work/fit.txt"
else
	"$work/hostcheck" -o "$dir" >"$work/fit.txt"
fi
grep '^suite:' "$work/fit.txt"
"$work/wolong" validate --hw "$dir/local.json" --ort-latency "$dir/shared" --models ../shared/models --format json >"$dir/val.json"
jq -r '
  def mape(xs): if (xs|length) == 0 then 0 else ([xs[]|.error_pct|fabs]|add/length) end;
  def signed(xs): if (xs|length) == 0 then 0 else ([xs[]|.error_pct]|add/length) end;
  def r1: . * 10 | round / 10;
  [.models[]|select(.measured_ms != null)] as $all |
  [$all[]|select(.measured_ms < 1.5)] as $small |
  "development set: \($all|length) shared models: MAPE \(mape($all)|r1)%, worst \(.max_ratio*100|round/100)x",
  "  under 1.5 ms: \($small|length) models: MAPE \(mape($small)|r1)%, mean signed error \(signed($small)|r1)% (negative: predicted too fast), \([$small[]|select((.error_pct|fabs) > 20)]|length) off by more than 20%"' "$dir/val.json"
echo "per-model rows: $dir/val.json; the fit: $dir/local.json"
