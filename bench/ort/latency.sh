#!/usr/bin/env bash
# Installs ONNX Runtime 1.30 from npm (onnxruntime-node, CPU binaries only:
# ONNXRUNTIME_NODE_INSTALL=skip) if it is not installed yet, then measures
# end-to-end latency as people run it: profiling off, warm, median of many
# runs (one thread and graph optimizations disabled unless told otherwise).
# With --profiled it also writes each model's per-node profile
# (<name>.profile.json) from a profiled session run alternately.
# The script is internal/ortbench/js/measure.mjs (wolong embeds it); see its
# header for the options and the file format.
#
#   bench/ort/latency.sh OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--threads T]
#                        [--level L] [--profiled] [--interleave] [--spec SPEC.json] [MODEL.onnx ...]
set -euo pipefail
cd "$(dirname "$0")"
command -v node >/dev/null || { echo "latency.sh: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
. ./lib.sh
ort_install
out=$1
shift
case "$out" in /*) ;; *) out="$OLDPWD/$out" ;; esac
WOLONG_ORT_HOME=$PWD exec node ../../internal/ortbench/js/measure.mjs "$out" "$@"
