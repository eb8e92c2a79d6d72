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
spec=$work/models/spec.json
. bench/measure_predict.sh
