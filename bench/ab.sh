#!/usr/bin/env bash
# Side-by-side timing of two or more wolong binaries on one model: the
# binaries run in turn, N rounds, so a change of machine load hits all of
# them alike (the only fair before/after on a noisy VM). Prints, per
# binary, each run's wall seconds and max RSS (MB, /usr/bin/time's %M).
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
declare -A wall rss
for _ in $(seq "$n"); do
  for b in "$@"; do
    # shellcheck disable=SC2086
    o=$(/usr/bin/time -f "%e %M" "$b" "${CMD:-optimize}" "$m" $args 2>&1 >/dev/null | tail -1)
    wall[$b]+="${o% *} "
    rss[$b]+="$((${o#* } / 1024)) "
  done
done
for b in "$@"; do
  echo "$(basename "$m") $b wall s: ${wall[$b]}max RSS MB: ${rss[$b]}"
done
