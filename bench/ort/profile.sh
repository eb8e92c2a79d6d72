#!/usr/bin/env bash
# Installs ONNX Runtime 1.30 from npm (onnxruntime-node, CPU binaries only:
# ONNXRUNTIME_NODE_INSTALL=skip) if it is not installed yet, then profiles
# models with it: one thread, graph optimizations disabled, profiling on,
# medians over repeated runs (see profile.mjs for the options).
#
#   bench/ort/profile.sh OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--cpu-time] [MODEL.onnx ...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ort_run profile.sh profile.mjs "$@"
