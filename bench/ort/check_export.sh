#!/usr/bin/env bash
# Exports every model under ../shared/models and the light zoo models with
# wolong (import -> export at -O0, the optimized model at -O3 and at -O3
# --target ort), then checks that ONNX Runtime 1.30 loads each export, as it
# loads the original. go test ./cmd -run EmittedModelsRunInORT also runs
# them and compares outputs.
# Needs node and npm; installs onnxruntime-node without GPU downloads.
set -uo pipefail
cd "$(dirname "$0")"
. ./lib.sh
ort_setup
out=$work
exports=()
originals_ok=0
for m in $(ort_models); do
  m=$repo/../$m
  node load.mjs "$m" >/dev/null 2>&1 || { echo "skip (ORT cannot load the original either): $m"; continue; }
  originals_ok=$((originals_ok+1))
  b=$(basename "$m" .onnx)
  for v in "-O0" "-O3" "-O3 --target ort"; do
    f="$out/$b.$(echo "$v" | tr -d ' -').onnx"
    if "$out/wolong" optimize "$m" $v --emit-onnx "$f" >/dev/null 2>"$out/err"; then
      exports+=("$f")
    else
      echo "FAIL wolong optimize $v $m: $(head -1 "$out/err")"
    fi
  done
done
node load.mjs "${exports[@]}" | tee "$out/load.txt" | grep -v '^ok ' 
echo "originals ORT loads: $originals_ok; exports loaded: $(grep -c '^ok ' "$out/load.txt") of ${#exports[@]}"
