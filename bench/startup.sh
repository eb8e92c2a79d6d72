#!/usr/bin/env bash
# Start-up cost of wolong as a user sees it (issue 25): the median wall
# time of `wolong --help` and of `wolong profile` on the bundled sample
# (testdata/models/sample_cnn.onnx --dim N=1), over RUNS runs each
# (default 200, interleaved with an empty Go program's, the floor the OS
# and the Go runtime set), then the package initialisers' cost from
# GODEBUG=inittrace=1 (median over 20 runs of their total, and the
# costliest packages of one run).
#
#   bench/startup.sh [RUNS]
#
# Targets: --help <= 10 ms, profile of the sample <= 15 ms (2 vCPU).
# Timing uses a small Go program (one fork+exec+wait per run, its own
# start-up not counted); the load average is printed with the figures.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/wolong" .)
mkdir -p "$work/empty" "$work/timer"
cat >"$work/empty/main.go" <<'EOF'
package main

func main() {}
EOF
cat >"$work/timer/main.go" <<'EOF'
// timer runs each command line (separated by "--") RUNS times,
// interleaved, output discarded, and prints each one's median and 10th/
// 90th percentile wall time in ms.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	runs, _ := strconv.Atoi(os.Args[1])
	var cmds [][]string
	cur := []string{}
	for _, a := range os.Args[2:] {
		if a == "--" {
			cmds, cur = append(cmds, cur), []string{}
			continue
		}
		cur = append(cur, a)
	}
	cmds = append(cmds, cur)
	ts := make([][]float64, len(cmds))
	for r := 0; r < runs; r++ {
		for i, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			t := time.Now()
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, strings.Join(c, " ")+":", err)
				os.Exit(1)
			}
			ts[i] = append(ts[i], float64(time.Since(t).Microseconds())/1000)
		}
	}
	for i, c := range cmds {
		sort.Float64s(ts[i])
		n := len(ts[i])
		fmt.Printf("%-60s median %6.2f ms  (p10 %.2f, p90 %.2f; %d runs)\n", strings.Join(c, " "), ts[i][n/2], ts[i][n/10], ts[i][n*9/10], n)
	}
}
EOF
(cd "$work/empty" && go mod init empty >/dev/null 2>&1 && go build -o "$work/empty.bin" .)
(cd "$work/timer" && go mod init timer >/dev/null 2>&1 && go build -o "$work/timer.bin" .)
sample="$root/testdata/models/sample_cnn.onnx"
echo "wolong $(cd "$root" && git describe --always --dirty 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) before; binary $(($(stat -c %s "$work/wolong") / 1048576)) MiB"
"$work/timer.bin" "$runs" "$work/empty.bin" -- "$work/wolong" --help -- "$work/wolong" profile "$sample" --dim N=1 |
  sed -e "s|$work/empty.bin|(empty Go program)|" -e "s|$work/||" -e "s|$root/||"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) after"
totals=$(for _ in $(seq 20); do GODEBUG=inittrace=1 "$work/wolong" --help 2>&1 >/dev/null | awk '/^init / {s+=$5} END {printf "%.2f\n", s}'; done | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
echo "package init (GODEBUG=inittrace=1, wolong --help): median total ${totals} ms over 20 runs; costliest packages of one run (ms, bytes allocated):"
GODEBUG=inittrace=1 "$work/wolong" --help 2>&1 >/dev/null | awk '/^init / {print $5, $2, $8}' | sort -g -r | head -12 | awk '{printf "  %6.2f ms  %-55s %s B\n", $1, $2, $3}'
