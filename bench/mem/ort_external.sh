#!/usr/bin/env bash
# Checks that the models --emit-onnx writes with external data load in
# ONNX Runtime 1.30 and compute what the original computes, and that
# wolong re-imports them:
#   - a generated MLP just over 2 GiB (hidden 8192 x 9 layers, 2.25 GiB of
#     weights in a sparse external file), emitted into its own folder (the
#     weights are referenced in place) and into another folder (copied into
#     OUT.onnx.data);
#   - the sample CNN with --external-data always (copied).
#
#   bench/mem/ort_external.sh [WORKDIR]
#
# Needs node and npm (installs onnxruntime-node in bench/ort, without GPU
# downloads) and about 6 GB of memory (ONNX Runtime holds the weights of
# both models of a comparison).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/bench/ort/lib.sh"
ort_install
work=${1:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/big" "$work/other"
(cd "$root" && go build -o "$work/wolong" . && go build -o "$work/gen" ./testdata/gen)
"$work/gen" -o "$work/big" -mlp 8192x9 -external >/dev/null
m=$work/big/mlp_8192x9.onnx
fail=0
check() { # label original emitted input...
  local label=$1 a=$2 b=$3; shift 3
  echo "== $label"
  "$work/wolong" inspect "$b" >/dev/null || { echo "FAIL wolong cannot re-import $b"; fail=1; }
  node "$here/compare.mjs" "$a" "$b" "$@" || fail=1
}
"$work/wolong" optimize "$m" --emit-onnx "$work/big/opt.onnx" --format json | grep -o '"--emit-onnx: [^"]*"' || true
check "2.25 GiB, referenced" "$m" "$work/big/opt.onnx" x=1x8192
"$work/wolong" optimize "$m" --emit-onnx "$work/other/opt.onnx" --format json | grep -o '"--emit-onnx: [^"]*"' || true
check "2.25 GiB, copied" "$m" "$work/other/opt.onnx" x=1x8192
"$work/wolong" optimize "$root/testdata/models/sample_cnn.onnx" --external-data always --emit-onnx "$work/other/cnn.onnx" >/dev/null
check "sample CNN, --external-data always" "$root/testdata/models/sample_cnn.onnx" "$work/other/cnn.onnx" image=2x3x32x32
ls -ls "$work/big" "$work/other"
exit $fail
