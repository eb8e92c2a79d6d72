#!/usr/bin/env bash
# Resident memory per command on generated MLPs with large weights: the
# figure is the maximum resident set size (/usr/bin/time -v, which counts
# pages of a mapped file the process touched as well as its heap).
#
#   bench/mem/rss.sh [WORKDIR]     (default: a temporary folder, removed)
#
# Models (testdata/gen -mlp, weights random in their first 4 KiB and zero
# after, so no two are equal and the files are sparse):
#   1gib   hidden 8192 x 4 layers, 1 GiB of float32 weights inline
#          (a real 1 GiB file)
#   16gib  hidden 8192 x 64 layers, 16 GiB of weights in a sparse external
#          file (no disk, no page cache until read)
# Commands: inspect, profile, optimize, explain, optimize --emit-onnx
# (1gib: written inline; 16gib: into the model's folder, where the weights
# are referenced in place, and into another folder, where they are copied
# into OUT.onnx.data, streaming). Target: <= 150 MB each.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/1gib" "$work/16gib" "$work/copy"
(cd "$root" && go build -o "$work/wolong" . && go build -o "$work/gen" ./testdata/gen)
"$work/gen" -o "$work/1gib" -mlp 8192x4 >/dev/null
"$work/gen" -o "$work/16gib" -mlp 8192x64 -external >/dev/null
limit=150
fail=0
measure() { # label model args...
  local label=$1 model=$2; shift 2
  local log="$work/time.txt"
  if ! /usr/bin/time -v "$work/wolong" "$@" >/dev/null 2>"$log"; then
    echo "FAIL $label: $(grep -m1 wolong: "$log" || tail -1 "$log")"; fail=1; return
  fi
  local kb wall
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
  local mb=$((kb / 1024))
  local mark=""
  [ "$mb" -le "$limit" ] || { mark="  OVER ${limit} MB"; fail=1; }
  printf '| %-6s | %-34s | %6d MB | %9s |%s\n' "$model" "$label" "$mb" "$wall" "$mark"
}
echo "wolong $(cd "$root" && git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) CPUs, $(uname -r)"
printf '| %-6s | %-34s | %9s | %9s |\n' model command "max RSS" wall
printf '|--------|------------------------------------|-----------|-----------|\n'
for size in 1gib 16gib; do
  if [ $size = 1gib ]; then m=$work/1gib/mlp_8192x4.onnx; else m=$work/16gib/mlp_8192x64.onnx; fi
  measure inspect $size inspect "$m"
  measure profile $size profile "$m"
  measure "optimize" $size optimize "$m"
  measure "explain" $size explain "$m"
  if [ $size = 1gib ]; then
    measure "optimize --emit-onnx (inline)" $size optimize "$m" --emit-onnx "$work/copy/1gib.opt.onnx"
  else
    measure "optimize --emit-onnx (referenced)" $size optimize "$m" --emit-onnx "$work/16gib/opt.onnx"
    measure "optimize --emit-onnx (copied)" $size optimize "$m" --emit-onnx "$work/copy/16gib.opt.onnx"
  fi
done
exit $fail
