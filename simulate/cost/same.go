package cost

import "math"

// Same reports whether a and b are the same estimate, field by field:
// floats by their bits (so -0 and 0 differ, and a NaN is the same as an
// identical NaN), Work element by element (nil and empty alike). Where
// Same holds, either may stand for the other in every output.
func Same(a, b *Estimate) bool {
	if a == b {
		return true
	}
	return sameCost(&a.Cost, &b.Cost) && a.Unknown == b.Unknown && a.Why == b.Why &&
		sameF(a.ComputeS, b.ComputeS) && sameF(a.MemoryS, b.MemoryS) && sameF(a.OverheadS, b.OverheadS) &&
		sameF(a.DeviceS, b.DeviceS) && sameF(a.HostS, b.HostS) && a.Bound == b.Bound && a.Math == b.Math &&
		sameF(a.Occupancy, b.Occupancy) && sameF(a.BranchLessS, b.BranchLessS) && sameF(a.BranchMoreS, b.BranchMoreS)
}

func sameCost(a, b *Cost) bool {
	if a.Class != b.Class || a.Op != b.Op || !sameF(a.FLOPs, b.FLOPs) || !sameF(a.Bytes, b.Bytes) ||
		a.Kernels != b.Kernels || a.DType != b.DType || !sameF(a.WeightBytes, b.WeightBytes) ||
		a.Note != b.Note || !sameF(a.StagedBytes, b.StagedBytes) || a.Steps != b.Steps ||
		!sameF(a.Spans, b.Spans) || a.Unaligned != b.Unaligned || len(a.Work) != len(b.Work) {
		return false
	}
	for i := range a.Work {
		x, y := &a.Work[i], &b.Work[i]
		if !sameF(x.FLOPs, y.FLOPs) || !sameF(x.Tiles, y.Tiles) || !sameF(x.Count, y.Count) ||
			!sameF(x.Rows, y.Rows) || !sameF(x.Cols, y.Cols) {
			return false
		}
	}
	return true
}

func sameF(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// Hash is a hash of e for a table of distinct estimates: estimates Same
// reports the same have the same Hash. It reads every field Same compares
// (floats by their bits): estimates that differ only in a field it left
// out would share a hash, and a table of many such (control flow's If
// estimates differ in their branch times alone) would compare each new
// one with all of them.
func Hash(e *Estimate) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
		h ^= h >> 29
	}
	f := func(x float64) { mix(math.Float64bits(x)) }
	str := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		mix(uint64(len(s)))
	}
	b := func(x bool) {
		if x {
			mix(1)
		} else {
			mix(2)
		}
	}
	c := &e.Cost
	str(string(c.Class))
	str(c.Op)
	f(c.FLOPs)
	f(c.Bytes)
	mix(uint64(c.Kernels))
	mix(uint64(len(c.Work)))
	for i := range c.Work {
		w := &c.Work[i]
		f(w.FLOPs)
		f(w.Tiles)
		f(w.Count)
		f(w.Rows)
		f(w.Cols)
	}
	mix(uint64(c.DType))
	f(c.WeightBytes)
	str(c.Note)
	f(c.StagedBytes)
	mix(uint64(c.Steps))
	f(c.Spans)
	b(c.Unaligned)
	b(e.Unknown)
	str(e.Why)
	f(e.ComputeS)
	f(e.MemoryS)
	f(e.OverheadS)
	f(e.DeviceS)
	f(e.HostS)
	str(string(e.Bound))
	str(e.Math)
	f(e.Occupancy)
	f(e.BranchLessS)
	f(e.BranchMoreS)
	return h
}
