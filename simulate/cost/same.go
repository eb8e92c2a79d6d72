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
// reports the same have the same Hash (it reads a few of the fields Same
// compares, floats by their bits).
func Hash(e *Estimate) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
		h ^= h >> 29
	}
	str := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		mix(uint64(len(s)))
	}
	str(string(e.Class))
	str(e.Op)
	mix(math.Float64bits(e.FLOPs))
	mix(math.Float64bits(e.Bytes))
	mix(uint64(e.Kernels))
	mix(math.Float64bits(e.DeviceS))
	mix(math.Float64bits(e.HostS))
	mix(math.Float64bits(e.WeightBytes))
	mix(uint64(len(e.Work)))
	return h
}
