package simulate

import (
	"reflect"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// shortCutShapes are the generated shapes the short cuts' tests compare
// with a full Run.
var shortCutShapes = []struct {
	shape string
	nodes int
}{{"cnn", 600}, {"control", 300}, {"heads", 400}, {"rnn", 500}}

// builtShape is shape built at about nodes nodes and inferred at batch 2.
func builtShape(t *testing.T, shape string, nodes int) *ir.Model {
	t.Helper()
	s, err := modelgen.ShapeByName(shape)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Build(nodes)
	ir.InferModel(m, ir.InferOptions{Inputs: BatchInputs(m.Graph, 2, nil)})
	return m
}

// TestRunDroppedIsRun: RunDropped after unused initializers are dropped
// from a model's graphs (the main graph and its bodies) gives what a
// fresh Run of the model gives, field for field, and refuses what it
// cannot check (training, working-set hardware, other tasks).
func TestRunDroppedIsRun(t *testing.T) {
	gpu, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range shortCutShapes {
		m := builtShape(t, c.shape, c.nodes)
		// unused float initializers in every graph, some of them large
		// enough to move the peak
		k := 0
		m.Graph.Walk(func(g *ir.Graph) bool {
			for i := range 2 {
				g.AddInitializer(&ir.Tensor{Name: "unused_" + string(rune('a'+k)), DType: ir.Float32, Dims: []int64{int64(64 << (4 * i))}, Raw: make([]byte, 4*64<<(4*i))})
				k++
			}
			return k < 40
		})
		opt := Options{Streams: 1, Mode: Inference, Batch: 2}
		old, err := Run(m, gpu, opt)
		if err != nil {
			t.Fatal(err)
		}
		m.Graph.Walk(func(g *ir.Graph) bool {
			var kept []*ir.Value
			for _, v := range g.Initializers {
				if len(v.Uses) > 0 || v.Name[:min(len(v.Name), 7)] != "unused_" {
					kept = append(kept, v)
				}
			}
			g.Initializers = kept
			return true
		})
		want, err := Run(m, gpu, opt)
		if err != nil {
			t.Fatal(err)
		}
		if want.WeightBytes == old.WeightBytes {
			t.Fatalf("%s: dropping the initializers left the weights at %g B: the test tests nothing", c.shape, want.WeightBytes)
		}
		got, ok := RunDropped(m, gpu, opt, old)
		if !ok {
			t.Fatalf("%s: RunDropped refused", c.shape)
		}
		got.fwd, got.mem, want.fwd, want.mem = fwdScratch{}, memScratch{}, fwdScratch{}, memScratch{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: RunDropped differs from Run:\n got  total %g s, peak %g B at %g s, weights %g B, %d both, %q\n want total %g s, peak %g B at %g s, weights %g B, %d both, %q", c.shape,
				got.TotalS, got.PeakMemoryBytes, got.PeakMemoryAtS, got.WeightBytes, got.bothBranches, got.Assumptions,
				want.TotalS, want.PeakMemoryBytes, want.PeakMemoryAtS, want.WeightBytes, want.bothBranches, want.Assumptions)
		}
	}

	m := builtShape(t, "cnn", 200)
	ws := *gpu // weights sized against the cache: every estimate reads them
	ws.CacheWorkingSet = true
	for _, c := range []struct {
		what string
		h    *hw.Hardware
		opt  Options
		edit func()
	}{
		{"training", gpu, Options{Mode: Train}, nil},
		{"working-set hardware", &ws, Options{}, nil},
		{"other options", gpu, Options{Streams: 2}, nil},
		{"a node dropped", gpu, Options{}, func() { m.Graph.Nodes = m.Graph.Nodes[:len(m.Graph.Nodes)-1] }},
	} {
		old, err := Run(m, c.h, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		nodes := m.Graph.Nodes
		opt := c.opt
		if c.what == "other options" {
			opt.Streams = 1
		}
		if c.edit != nil {
			c.edit()
		}
		if _, ok := RunDropped(m, c.h, opt, old); ok {
			t.Errorf("%s: RunDropped did not refuse", c.what)
		}
		if old.Tasks == nil {
			t.Errorf("%s: RunDropped refused but emptied old", c.what)
		}
		m.Graph.Nodes = nodes
	}
}
