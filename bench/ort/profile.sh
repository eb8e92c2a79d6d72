#!/usr/bin/env bash
# Installs ONNX Runtime 1.30 from npm (onnxruntime-node, CPU binaries only:
# ONNXRUNTIME_NODE_INSTALL=skip) if it is not installed yet, then profiles
# models with it: one thread, graph optimizations disabled, profiling on,
# medians over repeated runs (see profile.mjs for the options).
#
#   bench/ort/profile.sh OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--cpu-time] [MODEL.onnx ...]
set -euo pipefail
cd "$(dirname "$0")"
command -v node >/dev/null || { echo "profile.sh: node is not installed (ONNX Runtime runs under node)" >&2; exit 2; }
. ./lib.sh
ort_install
out=$1
shift
case "$out" in /*) ;; *) out="$OLDPWD/$out" ;; esac
exec node profile.mjs "$out" "$@"
