#!/usr/bin/env bash
# Measures ONNX Runtime 1.30's node count at its 'extended' optimization
# level (CPU) for every shared and light model, next to wolong's kernel count
# after -O3, and writes testdata/ort/kernels_vs_ort.tsv (model, ort_nodes,
# wolong_kernels). optimize/ort_kernels_test.go checks the committed file.
set -uo pipefail
cd "$(dirname "$0")"
. ./lib.sh
ort_setup
tmp=$work
out="$repo/testdata/ort/kernels_vs_ort.tsv"
mkdir -p "$(dirname "$out")"
echo -e "model\tort_extended_nodes\twolong_O3_kernels" > "$out.tmp"
for m in $(ort_models); do
  line=$(OUT_DIR="$tmp" node ort_nodes.mjs "$repo/../$m")
  opt=${line#*$'\t'}
  case "$opt" in FAIL*) continue;; esac
  ort_nodes=$("$tmp/wolong" inspect "$opt" --format json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).nodes))')
  k=$("$tmp/wolong" optimize "$repo/../$m" -O3 --format json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).optimized.kernels)}catch(e){console.log("")}})')
  [ -n "$ort_nodes" ] && [ -n "$k" ] && echo -e "$m\t$ort_nodes\t$k" >> "$out.tmp"
done
mv "$out.tmp" "$out"
column -t "$out"
