package simulate

// This file implements the event engine: one host thread issuing kernels
// in order onto device streams, each kernel starting when it has been
// issued, its dependencies have finished and its stream is free.

import (
	"math"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// gapEps ignores idle slivers from floating-point rounding.
const gapEps = 1e-12

func schedule(res *Result, h *hw.Hardware, before, after float64) {
	tasks := res.Tasks
	nStreams := res.Options.Streams
	sync := h.Kind == "cpu"
	streamFree := make([]float64, nStreams)
	stats := make([]StreamStats, nStreams)
	cp := reuse(res.mem.cp, len(tasks))
	clear(cp)
	res.mem.cp = cp
	gaps := topGaps{n: maxListed}
	// the host's per-run work (binding inputs) comes before the first node
	hostFree := before
	res.HostBusyS += hostFree
	var active []running
	// the latest end and the longest chain, found as the tasks are placed
	// instead of in two more walks of them (math.Max is a maximum over one
	// order of the floats, NaN and the infinities included, with -Inf its
	// identity: the same values either way)
	lastEnd, longest := math.Inf(-1), math.Inf(-1)
	for i := range tasks {
		t := &tasks[i]
		ready, cpIn := 0.0, 0.0
		for _, d := range res.depsOf(t) {
			ready = fmax(ready, tasks[d].End)
			cpIn = fmax(cpIn, cp[d])
		}
		e := t.Est
		res.FLOPs += e.FLOPs
		res.Bytes += e.Bytes
		res.Kernels += e.Kernels
		// the host issues every node (a synchronous CPU runtime only once
		// its inputs are ready), kernel or not
		t.IssueStart = hostFree
		if sync {
			t.IssueStart = fmax(hostFree, ready)
		}
		t.IssueEnd = t.IssueStart + e.HostS
		res.HostBusyS += e.HostS
		if e.Kernels == 0 {
			t.Stream = -1
			t.Start, t.End = fmax(ready, t.IssueEnd), fmax(ready, t.IssueEnd)
			hostFree = t.IssueEnd
			cp[i] = cpIn
			lastEnd, longest = fmax(lastEnd, t.End), fmax(longest, cp[i])
			continue
		}
		s := 0
		best := fmax(fmax(ready, t.IssueEnd), streamFree[0])
		for k := 1; k < nStreams; k++ {
			if st := fmax(fmax(ready, t.IssueEnd), streamFree[k]); st < best {
				s, best = k, st
			}
		}
		if nStreams > 1 {
			best = fitDevice(&active, best, e.DeviceS, occupancy(e.Occupancy), t.IssueEnd)
		}
		t.Stream = s
		t.Start = best
		t.End = best + e.DeviceS
		if gap := t.Start - streamFree[s]; gap > gapEps {
			cause := "dependency"
			if t.Start == t.IssueEnd && t.IssueEnd > ready {
				cause = "host"
				stats[s].HostWaitS += gap
			}
			stats[s].Gaps++
			gaps.add(Gap{Stream: s, Start: streamFree[s], End: t.Start, Cause: cause})
		}
		if nStreams > 1 {
			active = append(active, running{t.Start, t.End, occupancy(e.Occupancy)})
		}
		streamFree[s] = t.End
		stats[s].BusyS += e.DeviceS
		stats[s].Kernels += e.Kernels
		res.BusyS += e.DeviceS
		cp[i] = cpIn + e.DeviceS
		lastEnd, longest = fmax(lastEnd, t.End), fmax(longest, cp[i])
		hostFree = t.IssueEnd
		if sync {
			hostFree = t.End
		}
	}
	total := fmax(hostFree, lastEnd)
	// then the outputs go back to the caller
	total += after
	res.HostBusyS += after
	res.CriticalPathS = fmax(res.CriticalPathS, longest)
	for s := range stats {
		stats[s].IdleS = total - stats[s].BusyS
		if tail := total - streamFree[s]; tail > gapEps && stats[s].Kernels > 0 {
			gaps.add(Gap{Stream: s, Start: streamFree[s], End: total, Cause: "tail"})
		}
	}
	res.TotalS = total
	res.Streams = stats
	res.LargestGaps = gaps.top
}

// fmax is math.Max, inlined: the builtin max but where one of x and y is
// +Inf (math.Max gives +Inf, the builtin NaN when the other is NaN).
// math.Max is a call on amd64; schedule makes several a task, ~10 ms of a
// 100k-node optimize's predictions.
func fmax(x, y float64) float64 {
	if x > math.MaxFloat64 || y > math.MaxFloat64 { // one is +Inf
		return math.Inf(1)
	}
	return max(x, y)
}

// running is a kernel placed on the device: its interval and the fraction
// of the SMs it occupies.
type running struct {
	start, end, occ float64
}

func occupancy(f float64) float64 {
	if !(f > 0) || f > 1 {
		return 1
	}
	return f
}

// fitDevice returns the earliest time >= t at which a kernel of duration d
// and occupancy occ fits beside the kernels already running (their
// occupancies summing to at most 1 over its whole interval). Kernels that
// end before now (the current issue time, a lower bound on every later
// start) are dropped from active.
func fitDevice(active *[]running, t, d, occ, now float64) float64 {
	kept := (*active)[:0]
	for _, r := range *active {
		if r.end > now {
			kept = append(kept, r)
		}
	}
	*active = kept
	for iter := 0; iter <= len(kept); iter++ {
		end := t + d
		// occupancy is piecewise constant: check at t and at every start
		// inside (t, end)
		worst, next := 0.0, math.Inf(1)
		for _, p := range kept {
			at := p.start
			if at < t {
				at = t
			}
			if at >= end || p.end <= t {
				continue
			}
			load := 0.0
			for _, q := range kept {
				if q.start <= at && q.end > at {
					load += q.occ
				}
			}
			if load > worst {
				worst = load
			}
		}
		if worst+occ <= 1+1e-9 {
			return t
		}
		// retry at the earliest end of a kernel overlapping the interval
		for _, p := range kept {
			if p.end > t && p.start < end && p.end < next {
				next = p.end
			}
		}
		if math.IsInf(next, 1) {
			return t
		}
		t = next
	}
	return t
}
