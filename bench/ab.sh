#!/usr/bin/env bash
# Side-by-side timing of two or more wolong binaries on one model: the
# binaries run in turn, N rounds, the order reversed every other round, so
# a change of machine load hits all of them alike (the only fair
# before/after on a noisy VM; use an even N). Prints, per binary, each
# run's wall seconds and CPU seconds (user + system) with their medians,
# and max RSS (MB, /usr/bin/time's %M).
#
#   bench/ab.sh N MODEL BIN...            # runs BIN optimize MODEL --dim batch=8
#   CMD=explain ARGS="--hw a100" bench/ab.sh 3 encoder_100000.onnx /tmp/old /tmp/new
#
# ARGS defaults to "--dim batch=8" (the benchmark shapes' symbolic batch);
# models named kit-* (onnxkit's, no symbolic dims) get none.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,11p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
n=$1 m=$2
shift 2
if [ -n "${ARGS+x}" ]; then args=$ARGS; else
  args="--dim batch=8"
  case $(basename "$m") in kit-*) args="" ;; esac
fi
/usr/bin/time -f %e true >/dev/null 2>&1 || { echo "ab.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
declare -A wall cpu rss
bins=("$@")
rev=()
for ((i = ${#bins[@]} - 1; i >= 0; i--)); do rev+=("${bins[i]}"); done
for r in $(seq "$n"); do
  # the order alternates (A B, then B A, ...): on the VMs measured so far
  # the run right after another binary's was up to 15% faster for minutes
  # at a time, whichever binary it was (docs/speed.md, eighth round)
  order=("${bins[@]}")
  if [ $((r % 2)) = 0 ]; then order=("${rev[@]}"); fi
  for b in "${order[@]}"; do
    # shellcheck disable=SC2086
    o=$(/usr/bin/time -f "%e %U %S %M" "$b" "${CMD:-optimize}" "$m" $args 2>&1 >/dev/null | tail -1)
    read -r e u s k <<<"$o"
    wall[$b]+="$e "
    cpu[$b]+="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') "
    rss[$b]+="$((k / 1024)) "
  done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for b in "$@"; do
  echo "$(basename "$m") $b wall s: ${wall[$b]}(median $(echo "${wall[$b]}" | med)) CPU s: ${cpu[$b]}(median $(echo "${cpu[$b]}" | med)) max RSS MB: ${rss[$b]}"
done
