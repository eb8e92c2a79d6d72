package report

// This file prints the short summary of an `optimize --cluster` placement;
// the full plan is the "placement" object of the JSON output and plan.json.

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/simulate/cluster"
)

// writePlacementSummary prints devices used, transfers by mechanism,
// registered memory against the limit and the fallbacks.
func writePlacementSummary(w io.Writer, pl *cluster.Placement) {
	fmt.Fprintf(w, "\nplacement: %s on %s, transport %s\n", pl.Strategy, pl.Cluster, pl.Transport)
	devs := map[string]int{}
	replicated := 0
	for _, n := range pl.Nodes {
		switch {
		case n.Replicated:
			replicated++
		case n.Device != nil:
			devs[n.Device.String()]++
		}
	}
	if replicated > 0 {
		fmt.Fprintf(w, "  devices:    every GPU (%s replicated, data parallel)\n", Count(replicated, "node"))
	}
	if len(devs) > 0 {
		names := make([]string, 0, len(devs))
		for d := range devs {
			names = append(names, d)
		}
		sort.Strings(names)
		var parts []string
		for _, d := range names {
			parts = append(parts, d+" "+Count(devs[d], "node"))
		}
		fmt.Fprintf(w, "  devices:    %d used: %s\n", len(names), strings.Join(parts, ", "))
	}
	type agg struct {
		n     int
		bytes float64
	}
	by := map[cluster.Mechanism]*agg{}
	for _, t := range pl.Transfers {
		a := by[t.Mechanism]
		if a == nil {
			a = &agg{}
			by[t.Mechanism] = a
		}
		a.n += t.Count
		a.bytes += t.Bytes * float64(t.Count)
	}
	mechs := make([]string, 0, len(by))
	for m := range by {
		mechs = append(mechs, string(m))
	}
	sort.Strings(mechs)
	if len(mechs) == 0 {
		fmt.Fprintln(w, "  transfers:  none")
	}
	for _, m := range mechs {
		a := by[cluster.Mechanism(m)]
		fmt.Fprintf(w, "  transfers:  %-20s %d per step, %s\n", m, a.n, Bytes(int64(a.bytes)))
	}
	var reg float64
	for _, b := range pl.RegisteredBytes {
		reg += b
	}
	// the limit in GB (1e9 bytes), as the network preset states it
	fmt.Fprintf(w, "  registered: %s in all (busiest machine %s, limit %.4g GB per machine), %d receive buffers\n",
		Bytes(int64(reg)), Bytes(int64(maxOf(pl.RegisteredBytes))), pl.LimitBytes/1e9, len(pl.Buffers))
	if len(pl.Fallbacks) == 0 {
		fmt.Fprintln(w, "  fallbacks:  none")
	}
	for _, f := range pl.Fallbacks {
		fmt.Fprintf(w, "  fallback:   %s\n", f)
	}
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}
