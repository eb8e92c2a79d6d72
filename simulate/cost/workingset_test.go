package cost

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// plainCPU is cpu-1t without the terms these tests switch on one at a
// time: no working set across kernels, no L3 and DRAM tier.
func plainCPU(t *testing.T) *hw.Hardware {
	cpu := preset(t, "cpu-1t").Clone()
	cpu.CacheWorkingSet, cpu.CacheWorkingFraction = false, 0
	cpu.L3MB, cpu.DRAMBandwidthGBs, cpu.DRAMStreamStall = 0, 0, 0
	return cpu
}

// TestCacheWorkingSet: with hw cache_working_set, a one-row MatMul whose
// own weights fit in the cache reads them from memory when the model's
// weights together do not (four 1 MB layers in a 2 MB cache), and from
// the cache when they do (one such layer); without it, both read from the
// cache. The term is stated as an assumption when it applies.
func TestCacheWorkingSet(t *testing.T) {
	chain := func(layers int) (*ir.Model, *ir.Node) { return matmulStack(t, 1, 512, layers) }
	cpu := plainCPU(t)
	cpu.L2MB = 2.097152
	if cpu.CacheBandwidthGBs <= cpu.MemoryBandwidthGBs {
		t.Fatalf("cpu-1t: cache %g GB/s not faster than memory %g GB/s", cpu.CacheBandwidthGBs, cpu.MemoryBandwidthGBs)
	}
	ws := cpu.Clone()
	ws.CacheWorkingSet = true
	big, bigNode := chain(4)
	small, smallNode := chain(1)
	perKernel := New(cpu, big, Options{}).Node(bigNode)
	m := New(ws, big, Options{})
	fromMem := m.Node(bigNode)
	if !(fromMem.MemoryS > 1.2*perKernel.MemoryS) {
		t.Errorf("4 MB of weights in a 2 MB cache: memory time %g s with cache_working_set, %g s without: want the weights from memory (slower)", fromMem.MemoryS, perKernel.MemoryS)
	}
	found := false
	for _, n := range m.Notes() {
		found = found || strings.Contains(n, "cache_working_set")
	}
	if !found {
		t.Errorf("no assumption states cache_working_set: %q", m.Notes())
	}
	a, b := New(cpu, small, Options{}).Node(smallNode), New(ws, small, Options{}).Node(smallNode)
	if a.MemoryS != b.MemoryS {
		t.Errorf("1 MB of weights in a 2 MB cache: memory time %g s with cache_working_set, %g s without: want the same", b.MemoryS, a.MemoryS)
	}
}

// matmulStack builds layers MatMuls of rows x n against n x n weights in a
// chain and returns the model and its first MatMul.
func matmulStack(t *testing.T, rows, n int64, layers int) (*ir.Model, *ir.Node) {
	t.Helper()
	g := ir.NewGraph("mlp")
	h := in(g, "x", ir.Float32, rows, n)
	var first *ir.Node
	for i := 0; i < layers; i++ {
		w := g.AddInitializer(&ir.Tensor{Name: fmt.Sprintf("w%d", i), DType: ir.Float32, Dims: []int64{n, n}, Raw: make([]byte, n*n*4)})
		mm := one(g, "MatMul", fmt.Sprintf("mm%d", i), []*ir.Value{h, w})
		if first == nil {
			first = mm
		}
		h = mm.Outputs[0]
	}
	g.Outputs = append(g.Outputs, h)
	return model(t, g, 17), first
}

// TestMissedShare: the share of the weights that misses the cache is 0
// up to cache_working_fraction of it, all of them beyond the cache, and
// rises linearly in between; fraction 0 or 1 is the step at the cache.
func TestMissedShare(t *testing.T) {
	for _, c := range []struct{ w, frac, want float64 }{
		{0.5, 0, 0}, {1.0, 0, 0}, {1.01, 0, 1}, {1.5, 1, 1}, {0.9, 1, 0},
		{0.3, 0.4, 0}, {0.4, 0.4, 0}, {0.7, 0.4, 0.5}, {1.0, 0.4, 1}, {3, 0.4, 1},
	} {
		if got := missedShare(c.w, 1, c.frac); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("missedShare(%g of the cache, fraction %g) = %g, want %g", c.w, c.frac, got, c.want)
		}
	}
}

// TestCacheWorkingFraction: with cache_working_fraction a model whose
// weights fill most of the cache reads part of them from memory (a
// one-row MatMul slows down, between the all-in-cache and all-from-memory
// times) and says so; one whose weights stay under the fraction is
// unchanged.
func TestCacheWorkingFraction(t *testing.T) {
	chain := func(n int64) (*ir.Model, *ir.Node) {
		g := ir.NewGraph("gemv")
		x := in(g, "x", ir.Float32, 1, n)
		w := g.AddInitializer(&ir.Tensor{Name: "w", DType: ir.Float32, Dims: []int64{n, n}, Raw: make([]byte, n*n*4)})
		mm := one(g, "MatMul", "mm", []*ir.Value{x, w})
		g.Outputs = append(g.Outputs, mm.Outputs[0])
		return model(t, g, 17), mm
	}
	cpu := plainCPU(t)
	cpu.L2MB, cpu.CacheWorkingSet = 2.097152, true
	part := cpu.Clone()
	part.CacheWorkingFraction = 0.5
	big, bigNode := chain(640) // 1.64 MB: 78% of the cache
	all := New(cpu, big, Options{}).Node(bigNode).MemoryS
	m := New(part, big, Options{})
	got := m.Node(bigNode).MemoryS
	mem := cpu.Clone()
	mem.L2MB = 1 // the same weights beyond the cache: all from memory
	none := New(mem, big, Options{}).Node(bigNode).MemoryS
	if !(got > all && got < none) {
		t.Errorf("78%% of the cache, fraction 0.5: memory time %g s, want between all in cache %g s and all from memory %g s", got, all, none)
	}
	found := false
	for _, n := range m.Notes() {
		found = found || strings.Contains(n, "cache_working_fraction")
	}
	if !found {
		t.Errorf("no assumption states cache_working_fraction: %q", m.Notes())
	}
	small, smallNode := chain(256) // 0.26 MB: under half the cache
	if a, b := New(cpu, small, Options{}).Node(smallNode).MemoryS, New(part, small, Options{}).Node(smallNode).MemoryS; a != b {
		t.Errorf("12%% of the cache: memory time %g s with fraction 0.5, %g s without: want the same", b, a)
	}
	bad := cpu.Clone()
	bad.CacheWorkingFraction = 1.5
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted cache_working_fraction 1.5")
	}
}

// TestWeightStreamStall: with weight_stream_stall s, a GEMM of 16 rows
// whose weights the cache does not keep takes up to s x min(compute,
// streaming) more than the roofline's max(compute, memory), and says so;
// one of 4 rows (under stallMinRows), one whose weights stay in the
// cache, or any model without the working set, is unchanged; s outside
// 0..1 is refused.
func TestWeightStreamStall(t *testing.T) {
	gemm := func(rows, n int64, layers int) (*ir.Model, *ir.Node) { return matmulStack(t, rows, n, layers) }
	cpu := preset(t, "cpu-1t").Clone()
	cpu.L2MB, cpu.CacheWorkingSet = 2.097152, true
	stall := cpu.Clone()
	stall.WeightStreamStall = 0.5
	big, bigNode := gemm(16, 768, 4) // 9.4 MB of weights: past the cache
	base := New(cpu, big, Options{}).Node(bigNode)
	m := New(stall, big, Options{})
	got := m.Node(bigNode)
	if base.ComputeS <= 0 || base.MemoryS <= 0 {
		t.Fatalf("compute %g s, memory %g s: want both", base.ComputeS, base.MemoryS)
	}
	added := got.DeviceS - base.DeviceS
	if !(added > 0 && added <= 0.5*math.Min(base.ComputeS, base.MemoryS)*(1+1e-9)) {
		t.Errorf("16 rows, 9.4 MB of weights, stall 0.5: %g s more than the roofline (compute %g s, memory %g s): want more, at most half the shorter", added, base.ComputeS, base.MemoryS)
	}
	found := false
	for _, n := range m.Notes() {
		found = found || strings.Contains(n, "weight_stream_stall")
	}
	if !found {
		t.Errorf("no assumption states weight_stream_stall: %q", m.Notes())
	}
	small, smallNode := gemm(16, 256, 1) // 0.26 MB: in the cache
	if a, b := New(cpu, small, Options{}).Node(smallNode).DeviceS, New(stall, small, Options{}).Node(smallNode).DeviceS; a != b {
		t.Errorf("weights in the cache: %g s with the stall, %g s without: want the same", b, a)
	}
	few, fewNode := gemm(4, 768, 4) // a matrix-vector product: prefetched
	if a, b := New(cpu, few, Options{}).Node(fewNode).DeviceS, New(stall, few, Options{}).Node(fewNode).DeviceS; a != b {
		t.Errorf("4 rows, weights past the cache: %g s with the stall, %g s without: want the same (under stallMinRows)", b, a)
	}
	noWS, noWSStall := cpu.Clone(), stall.Clone()
	noWS.CacheWorkingSet, noWSStall.CacheWorkingSet = false, false
	if a, b := New(noWS, big, Options{}).Node(bigNode).DeviceS, New(noWSStall, big, Options{}).Node(bigNode).DeviceS; a != b {
		t.Errorf("without cache_working_set: %g s with the stall, %g s without: want the same", b, a)
	}
	bad := cpu.Clone()
	bad.WeightStreamStall = 1.5
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted weight_stream_stall 1.5")
	}
}

// TestDRAMTier checks the weights past the L3 (hw l3_mb with
// dram_bandwidth_gbs): a one-row GEMM over 134 MB streams them at the DRAM
// speed (its memory time is their bytes over that speed, within the
// L3-speed part it had), 16 rows add dram_stream_stall x the shorter of
// arithmetic and that streaming, weights inside the L3 and files without
// the tier are unchanged, and the assumption is stated.
func TestDRAMTier(t *testing.T) {
	gemm := func(rows, n int64, layers int) (*ir.Model, *ir.Node) { return matmulStack(t, rows, n, layers) }
	cpu := plainCPU(t)
	cpu.L2MB, cpu.CacheWorkingSet, cpu.CacheWorkingFraction = 1.048576, true, 0.75
	tier := cpu.Clone()
	tier.L3MB, tier.DRAMBandwidthGBs, tier.DRAMStreamStall = 33.554432, 30, 1.2
	big, bigNode := gemm(1, 2896, 4) // 134 MB of weights: past the L3
	w := float64(2896 * 2896 * 4)
	base := New(cpu, big, Options{}).Node(bigNode)
	m := New(tier, big, Options{})
	got := m.Node(bigNode)
	if want := w / 30e9; got.MemoryS < want || got.MemoryS > want+base.MemoryS*0.05 {
		t.Errorf("one row, 134 MB: memory %g s, want ~%g s (the weights at 30 GB/s; %g s without the tier)", got.MemoryS, want, base.MemoryS)
	}
	found := false
	for _, n := range m.Notes() {
		found = found || strings.Contains(n, "dram_bandwidth_gbs")
	}
	if !found {
		t.Errorf("no assumption states dram_bandwidth_gbs: %q", m.Notes())
	}
	rows, rowsNode := gemm(16, 2896, 4)
	r := New(tier, rows, Options{}).Node(rowsNode)
	noStall := tier.Clone()
	noStall.DRAMStreamStall = 0
	r0 := New(noStall, rows, Options{}).Node(rowsNode)
	dramS := w / 30e9
	if added, want := r.DeviceS-r0.DeviceS, 1.2*math.Min(r0.ComputeS, dramS); math.Abs(added-want) > 1e-9*r.DeviceS+1e-12 {
		t.Errorf("16 rows past the L3: the stall adds %g s, want 1.2 x min(compute %g, DRAM %g) = %g s", added, r0.ComputeS, dramS, want)
	}
	mid, midNode := gemm(1, 1024, 4) // 16.8 MB: past the L2, inside the L3
	if a, b := New(cpu, mid, Options{}).Node(midNode).DeviceS, New(tier, mid, Options{}).Node(midNode).DeviceS; a != b {
		t.Errorf("weights inside the L3: %g s with the tier, %g s without: want the same", b, a)
	}
	noL3 := tier.Clone()
	noL3.L3MB = 0
	if a, b := base.DeviceS, New(noL3, big, Options{}).Node(bigNode).DeviceS; a != b {
		t.Errorf("no l3_mb: %g s, %g s without the tier: want the same", b, a)
	}
	bad := tier.Clone()
	bad.DRAMStreamStall = 4
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted dram_stream_stall 4")
	}
}

// TestReset checks that a Model reset for another model and hardware
// estimates it as a new one does: no working set, note or context left
// from the model it costed before.
func TestReset(t *testing.T) {
	cpu := preset(t, "cpu-1t").Clone()
	cpu.L2MB, cpu.CacheWorkingSet, cpu.CacheWorkingFraction = 1.048576, true, 0.75
	big, bigNode := matmulStack(t, 16, 768, 4)    // past the cache
	small, smallNode := matmulStack(t, 16, 64, 1) // in it
	m := New(cpu, big, Options{})
	m.Node(bigNode)
	m.Reset(cpu, small, Options{})
	got, want := m.Node(smallNode), New(cpu, small, Options{}).Node(smallNode)
	if got.DeviceS != want.DeviceS || got.MemoryS != want.MemoryS {
		t.Errorf("after Reset: %g s (memory %g s), a new Model: %g s (memory %g s)", got.DeviceS, got.MemoryS, want.DeviceS, want.MemoryS)
	}
	if n := m.Notes(); strings.Contains(strings.Join(n, "\n"), "exceed") {
		t.Errorf("a note of the model before the reset survived: %q", n)
	}
}
