package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestCacheWorkingSet: with hw cache_working_set, a one-row MatMul whose
// own weights fit in the cache reads them from memory when the model's
// weights together do not (four 1 MB layers in a 2 MB cache), and from
// the cache when they do (one such layer); without it, both read from the
// cache. The term is stated as an assumption when it applies.
func TestCacheWorkingSet(t *testing.T) {
	chain := func(layers int) (*ir.Model, *ir.Node) {
		g := ir.NewGraph("mlp")
		h := in(g, "x", ir.Float32, 1, 512)
		var first *ir.Node
		for i := 0; i < layers; i++ {
			w := g.AddInitializer(&ir.Tensor{Name: fmt.Sprintf("w%d", i), DType: ir.Float32, Dims: []int64{512, 512}, Raw: make([]byte, 512*512*4)})
			n := one(g, "MatMul", fmt.Sprintf("mm%d", i), []*ir.Value{h, w})
			if first == nil {
				first = n
			}
			h = n.Outputs[0]
		}
		g.Outputs = append(g.Outputs, h)
		return model(t, g, 17), first
	}
	cpu := preset(t, "cpu-1t").Clone()
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
