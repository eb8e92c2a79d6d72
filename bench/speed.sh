#!/usr/bin/env bash
# Wall time and resident memory of the whole pipeline on generated graphs
# of 100k and 1M nodes (testdata/gen -wide: modelgen.Wide, MatMul + Add +
# Relu blocks over [batch, 64] with a Sigmoid/Mul side branch every fourth
# block). Each command runs 3 times (interleaved); the figures are the
# medians of wall (s), CPU (user + system, s: what a loaded machine
# distorts least), system time (s) with minor page faults (the kernel's
# share: first touches of fresh heap pages) and max RSS (MB, /usr/bin/time
# -v). bench/pagefault measures what one page fault costs on the machine. Targets (issue
# 14): optimize <= 1.0 s and <= 200 MB at 100k, <= 12x the 100k wall at 1M.
#
#   bench/speed.sh [WORKDIR]   (default: a temporary folder, removed)
#
# SIZES="100000 1000000" and RUNS=3 override the sizes and the run count.
# Commands: optimize (the default -O level: import, inference, every
# default pass, simulation, report) and profile, both with --dim batch=8.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
sizes=${SIZES:-100000 1000000}
runs=${RUNS:-3}
mkdir -p "$work"
(cd "$root" && go build -o "$work/wolong" . && go build -o "$work/gen" ./testdata/gen)
for n in $sizes; do "$work/gen" -o "$work" -wide "$n" >/dev/null; done
cmds=("optimize" "profile")
# one run: appends "wall_s rss_kb cpu_s sys_s faults" to $work/CMD_N.txt
once() { # cmd n
  local log="$work/time.txt"
  if ! /usr/bin/time -v "$work/wolong" "$1" "$work/wide_$2.onnx" --dim batch=8 >/dev/null 2>"$log"; then
    echo "FAIL $1 wide_$2: $(grep -m1 wolong: "$log" || tail -1 "$log")" >&2; exit 1
  fi
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=t[n]+(n>1?60*t[n-1]:0); w=s} /Maximum resident set size/ {r=$2} /User time|System time/ {c+=$2} /System time/ {y=$2} /Minor/ {f=$2} END {print w, r, c, y, f}' "$log" >>"$work/$1_$2.txt"
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for n in $sizes; do for c in "${cmds[@]}"; do : >"$work/${c}_$n.txt"; done; done
for _ in $(seq "$runs"); do
  for n in $sizes; do for c in "${cmds[@]}"; do once "$c" "$n"; done; done
done
echo "wolong $(cd "$root" && git describe --always --dirty 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r); GOGC=${GOGC:-default} GOMEMLIMIT=${GOMEMLIMIT:-default}; median of $runs runs"
printf '| %-8s | %-8s | %8s | %8s | %16s | %8s | %s\n' command nodes wall CPU "system (faults)" "max RSS" "runs (wall s)"
printf '|----------|----------|----------|----------|------------------|----------|\n'
declare -A base
for c in "${cmds[@]}"; do
  for n in $sizes; do
    f="$work/${c}_$n.txt"
    w=$(awk '{print $1}' "$f" | median)
    r=$(awk '{print $2}' "$f" | median)
    cpu=$(awk '{print $3}' "$f" | median)
    sys=$(awk '{print $4}' "$f" | median)
    flt=$(awk '{print $5}' "$f" | median)
    extra=""
    if [ -n "${base[$c]:-}" ]; then extra=$(awk -v a="$w" -v b="${base[$c]}" 'BEGIN {printf "  (%.1fx the first size)", a/b}'); else base[$c]=$w; fi
    printf '| %-8s | %-8s | %6.2f s | %6.2f s | %4.2f s (%6dk) | %5d MB | %s%s\n' "$c" "$n" "$w" "$cpu" "$sys" "$((flt / 1000))" "$((r / 1024))" "$(awk '{printf "%s ", $1}' "$f")" "$extra"
  done
done
