#!/usr/bin/env bash
# Measures and predicts the GEMM family of bench/gemmstream (weights past
# the cache: one 2048x2048 Gemm at 1-64 rows, chains of 34-269 MB at 1 and
# 20 rows; ~1.1 GB of models written to WORKDIR) with ONNX Runtime 1.30,
# one thread, optimizations disabled, the calibration suite's estimator
# (twelve interleaved passes, the fastest quarter pooled), then prints each
# hardware file's prediction and error per model. Run it on a quiet
# machine (docs/calibration-protocol.md, "Weights past the cache").
#
#   bench/gemmstream.sh WORKDIR [HW ...]     # HW defaults to cpu-1t; ~3 min
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,10p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
work=$1
shift
mkdir -p "$work"
go build -o "$work/wolong" .
go run ./bench/gemmstream "$work/models"
go run ./bench/machineref >&2
bench/ort/latency.sh "$work/lat" --passes 12 --max-seconds 3 --pass-min-runs 5 --ci-pct 3 --ci-passes 2 --ci-seconds 30 --spec "$work/models/spec.json" >&2
[ $# -gt 0 ] || set -- cpu-1t
for h in "$@"; do
	echo "== --hw $h"
	"$work/wolong" validate --hw "$h" --ort-latency "$work/lat" --models "$work/models" --format json |
		jq -r '.models[] | "\(.model|split("/")|last) | \(.measured_ms*1000|round/1000) ms measured | \(.predicted_ms*1000|round/1000) ms predicted | \(if .error_pct > 0 then "+" else "" end)\(.error_pct*10|round/10)%"'
done
