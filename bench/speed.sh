#!/usr/bin/env bash
# Wall time, CPU and memory of wolong's commands on generated graphs of
# every benchmark shape at 100k and 1M nodes (issue 25), and ONNX Runtime
# 1.30's session creation on the same files (optimizations disabled)
# beside them where its harness is installed. One table: a line per
# shape, size and command.
#
#   bench/speed.sh [WORKDIR]   (default: a temporary folder, removed)
#   SIZES=100000 bench/speed.sh   (the 1M runs skipped: no 1M/100k column)
#
# Shapes: modelgen.Shapes (testdata/gen -shape NAME -nodes N: elementwise,
# matmul, fanout, concat, encoder, decoder, cnn, rnn, heads, control) and, where
# ../shared/tools/onnxkit exists, an independent generator the project did
# not write (kit-big, kit-chain, kit-branches, kit-transformer, kit-lstm:
# onnxkit gen KIND, sized to about N nodes).
#
# Each command runs RUNS times, interleaved; the figures are medians:
#   wall, CPU (user + system, s: what a loaded machine distorts least),
#   system time with minor page faults (the kernel's share: first touches
#   of fresh pages), max RSS (MB; /usr/bin/time -v, the kernel's VmHWM:
#   every resident page, the model file's pages that the import maps and
#   touches included) and peak anon (MB; RssAnon of /proc/PID/status
#   sampled every 0.1 s: heap and stacks only, without the mapped file).
#   The 1M/100k column is the ratio of median walls (target <= 12x).
#   ORT: median wall of InferenceSession.create (graph optimizations
#   disabled, one thread) timed inside node, bench/ort/session.mjs; a
#   session still being created after ORT_TIMEOUT seconds is stopped and
#   shows as ">N s" (concat at 100k, 25,000 inputs to one Concat, took
#   308 s a session on 2026-12-07).
# Targets (issue 25, 2 vCPU): optimize, explain and profile <= 1.0 s wall
# and <= 250 MB at 100k on every shape; 1M <= 12x the 100k wall; wolong
# <= 0.1x ORT's session creation.
#
# Environment: SHAPES, KIT (onnxkit kinds; empty: none), SIZES (default
# "100000 1000000"), CMDS (default "optimize explain profile"), RUNS
# (default 3), ORT_SIZES (sizes at which ORT is timed; default 100000:
# ORT takes minutes at 1M), ORT_RUNS (default 3), ORT_TIMEOUT (seconds one
# session creation may take, default 120; 0: no limit), GEN_ONLY=1 (write the
# models and stop), REF=0 (no machine reference: bench/machineref's fixed
# workloads, timed before and after the runs and printed above the table,
# ~15 s each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
shapes=${SHAPES-elementwise matmul fanout concat encoder decoder cnn rnn heads control}
kit=${KIT-big chain branches transformer lstm}
sizes=${SIZES:-100000 1000000}
cmds=(${CMDS:-optimize explain profile})
runs=${RUNS:-3}
ort_sizes=${ORT_SIZES-100000}
mkdir -p "$work"
(cd "$root" && go build -o "$work/wolong" . && go build -o "$work/gen" ./testdata/gen)
# timer: GNU time -v where it works, else bench/rusage (the same lines from
# the kernel's rusage of the child: a fresh machine may lack GNU time)
if /usr/bin/time -v true >/dev/null 2>&1; then timer=(/usr/bin/time -v); else
  (cd "$root" && go build -o "$work/rusage" ./bench/rusage); timer=("$work/rusage"); fi
kitdir="$root/../shared/tools/onnxkit"
if [ -n "$kit" ] && [ -d "$kitdir" ]; then (cd "$kitdir" && go build -o "$work/onnxkit" .); else kit=""; fi

nodes_of() { "$work/wolong" inspect "$1" --format json 2>/dev/null | grep -m1 -o '"nodes": *[0-9]*' | grep -o '[0-9]*$'; }
# kit_gen KIND N OUT: onnxkit's KIND with about N nodes (the size parameter
# scaled from the node counts at two small settings: nodes = a + b x param)
kit_gen() {
  local kind=$1 n=$2 out=$3 flag p1 p2 extra=()
  case $kind in
    big) "$work/onnxkit" gen big --nodes "$n" -o "$out" >/dev/null; return ;;
    chain) "$work/onnxkit" gen chain --nodes "$n" -o "$out" >/dev/null; return ;;
    branches) flag=--width; extra=(--depth 5 --hidden 16) ;;
    transformer) flag=--layers; extra=(--hidden 16 --heads 2) ;;
    lstm) kind=lstm-unrolled; flag=--steps; extra=(--hidden 8 --input 8) ;;
    *) echo "speed.sh: unknown onnxkit kind $kind" >&2; exit 2 ;;
  esac
  "$work/onnxkit" gen "$kind" "$flag" 4 "${extra[@]}" -o "$work/kit_probe.onnx" >/dev/null; p1=$(nodes_of "$work/kit_probe.onnx")
  "$work/onnxkit" gen "$kind" "$flag" 8 "${extra[@]}" -o "$work/kit_probe.onnx" >/dev/null; p2=$(nodes_of "$work/kit_probe.onnx")
  local per=$(((p2 - p1) / 4)) base=$((p1 - 4 * (p2 - p1) / 4))
  "$work/onnxkit" gen "$kind" "$flag" $(((n - base + per - 1) / per)) "${extra[@]}" -o "$out" >/dev/null
}

models=()
for n in $sizes; do
  for s in $shapes; do
    [ -f "$work/${s}_$n.onnx" ] || "$work/gen" -o "$work" -shape "$s" -nodes "$n" | grep -o '[0-9]* nodes' | grep -o '[0-9]*' >"$work/${s}_$n.nodes"
    models+=("${s}_$n")
  done
  for k in $kit; do
    [ -f "$work/kit-${k}_$n.onnx" ] || kit_gen "$k" "$n" "$work/kit-${k}_$n.onnx"
    models+=("kit-${k}_$n")
  done
done
[ "${GEN_ONLY:-}" = 1 ] && { ls -la "$work"/*.onnx; exit 0; }

# args M: the flags a model gets (--dim batch=8 where it has the dim)
args() { case $1 in kit-*) ;; *) echo "--dim batch=8" ;; esac; }
# once CMD M: appends "wall rss cpu sys faults anon" to $work/CMD_M.txt
# The peak anonymous RSS is sampled every 0.1 s with shell builtins only
# (no pgrep, awk or sleep processes): the loop this replaced forked three
# processes every 20 ms beside the command and made it about 35% slower
# on a 2-vCPU VM (encoder 100k optimize, 5 interleaved runs: median 2.33 s
# polled that way, 1.69 s alone), so the figures measured before
# 2026-12-06's fourth round (docs/speed.md) overstate wall time.
exec {nap}<> <(:)
once() {
  local log="$work/time.txt" pid anon=0 kids k v c _
  "${timer[@]}" "$work/wolong" "$1" "$work/$2.onnx" $(args "$2") >/dev/null 2>"$log" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    kids=""
    read -r kids <"/proc/$pid/task/$pid/children" 2>/dev/null || true
    for c in $kids; do
      while read -r k v _; do
        if [ "$k" = "RssAnon:" ]; then [ "$v" -gt "$anon" ] && anon=$v; break; fi
      done <"/proc/$c/status" 2>/dev/null || true
    done
    read -rt 0.1 -u "$nap" _ || true
  done
  if ! wait "$pid"; then echo "FAIL $1 $2: $(grep -m1 wolong: "$log" || tail -1 "$log")" >&2; exit 1; fi
  awk -F': ' -v anon="$anon" '/Elapsed \(wall clock\)/ {n=split($2,t,":"); w=t[n]+(n>1?60*t[n-1]:0)+(n>2?3600*t[n-2]:0)} /Maximum resident set size/ {r=$2} /User time|System time/ {c+=$2} /System time/ {y=$2} /Minor/ {f=$2} END {print w, r, c, y, f, anon}' "$log" >>"$work/$1_$2.txt"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "")}'; }
col() { awk -v k="$1" '{print $k}' "$2" | median; }

# ONNX Runtime's session creation, where the harness is installed
ort_mods=""
for d in "$root/bench/ort/node_modules" "${WOLONG_ORT_HOME:-$HOME/.cache/wolong/ort-1.30.0}/node_modules"; do
  [ -d "$d/onnxruntime-node" ] && { ort_mods=$d; break; }
done
if [ -n "$ort_mods" ] && [ -n "$ort_sizes" ] && command -v node >/dev/null; then
  ln -sfn "$ort_mods" "$work/node_modules"
  cp "$root/bench/ort/session.mjs" "$work/session.mjs"
else
  ort_sizes=""
fi

# the machine's state, before and after the runs (bench/machineref: fixed
# workloads independent of wolong's code; REF=0 skips it): figures of two
# days compare only where these agree
ref() { [ "${REF:-1}" = 0 ] || (cd "$root" && go run ./bench/machineref); }
ref_before=$(ref)
rm -f "$work"/ort_*.txt
for m in "${models[@]}"; do for c in "${cmds[@]}"; do : >"$work/${c}_$m.txt"; done; done
for _ in $(seq "$runs"); do
  for m in "${models[@]}"; do for c in "${cmds[@]}"; do once "$c" "$m"; done; done
done
# one node process a run, each under ORT_TIMEOUT (timeout's status 124:
# a "timeout" line, and the model's later runs skipped)
ort_timeout=${ORT_TIMEOUT:-120}
for m in "${models[@]}"; do
  n=${m##*_}
  case " $ort_sizes " in *" $n "*)
    : >"$work/ort_$m.txt"
    for _ in $(seq "${ORT_RUNS:-3}"); do
      rc=0
      timeout "$ort_timeout" node "$work/session.mjs" 1 "$work/$m.onnx" >>"$work/ort_$m.txt" 2>&1 || rc=$?
      if [ "$rc" = 124 ]; then echo "timeout $work/$m.onnx $ort_timeout" >>"$work/ort_$m.txt"; break; fi
    done ;;
  esac
done

echo "wolong $(cd "$root" && git describe --always --dirty 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(uname -r); GOGC=${GOGC:-default} GOMEMLIMIT=${GOMEMLIMIT:-default}; median of $runs runs${ort_mods:+; ORT 1.30 from $ort_mods}"
[ -z "$ref_before" ] || { echo "before: $ref_before"; echo "after:  $(ref)"; }
printf '| %-16s | %8s | %-8s | %7s | %7s | %16s | %7s | %9s | %8s | %10s |\n' shape nodes command wall CPU "system (faults)" "max RSS" "peak anon" "1M/100k" "ORT create"
printf '|------------------|----------|----------|---------|---------|------------------|---------|-----------|----------|------------|\n'
first=${sizes%% *}
for s in $shapes $(for k in $kit; do echo "kit-$k"; done); do
  for n in $sizes; do
    m="${s}_$n"
    nodes=$(cat "$work/$m.nodes" 2>/dev/null || nodes_of "$work/$m.onnx") # subgraph nodes counted for ours
    for c in "${cmds[@]}"; do
      f="$work/${c}_$m.txt"
      w=$(col 1 "$f")
      ratio="" ort=""
      if [ "$n" != "$first" ]; then ratio=$(awk -v a="$w" -v b="$(col 1 "$work/${c}_${s}_$first.txt")" 'BEGIN {printf "%.1fx", a/b}'); fi
      if [ "$c" = "${cmds[0]}" ] && [ -s "$work/ort_$m.txt" ]; then
        ort=$(awk '/^ok/ {print $3}' "$work/ort_$m.txt" | median)
        if grep -q '^timeout' "$work/ort_$m.txt"; then ort=">$ort_timeout s"
        elif [ -n "$ort" ]; then ort=$(awk -v o="$ort" -v w="$w" 'BEGIN {printf "%.2f s (%.2fx)", o, w/o}'); else ort="fails"; fi
      fi
      printf '| %-16s | %8s | %-8s | %5.2f s | %5.2f s | %4.2f s (%6dk) | %4d MB | %6d MB | %8s | %10s |\n' "$s" "$nodes" "$c" "$w" "$(col 3 "$f")" "$(col 4 "$f")" "$(($(col 5 "$f") / 1000))" "$(($(col 2 "$f") / 1024))" "$(($(col 6 "$f") / 1024))" "$ratio" "$ort"
    done
  done
done
[ -n "$ort_sizes" ] && echo "ORT create: median seconds of InferenceSession.create (graph optimizations disabled) and, in brackets, wolong's wall over it (goal <= 0.1x)" || echo "ORT create: not measured (no ONNX Runtime harness: go test ./internal/ortbench -run TestRunModels installs it)"
