#!/usr/bin/env bash
# The fuzzing sweep at scale (bench/mutate): builds wolong and the sweep
# once, then mutates ../shared/models, testdata/models and the hostile
# catalogue into N variants and runs import, inspect, profile, optimize,
# verify and run on each, one process at a time under nice 19.
#
#   bench/mutate.sh OUT [-n 10000] [-seed 1] [other bench/mutate flags]
#
# Figures: OUT/summary.json (and the table on stdout); every run in
# OUT/runs.jsonl; failing variants with their command lines in OUT/fail.
# Exit 1 when any run failed (panic, timeout, over-memory, garbled error).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/mutate.sh OUT [flags of bench/mutate]}
shift
mkdir -p "$out"
(cd "$root" && go build -o "$out/wolong" . && go build -o "$out/mutate" ./bench/mutate)
cd "$root"
exec nice -n 19 "$out/mutate" -o "$out" -bin "$out/wolong" "$@"
