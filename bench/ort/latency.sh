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
. "$(dirname "$0")/lib.sh"
WOLONG_ORT_HOME=$ort_dir ort_run latency.sh ../../internal/ortbench/js/measure.mjs "$@"
