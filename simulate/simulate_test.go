package simulate

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func in(g *ir.Graph, name string, dt ir.DType, dims ...int64) *ir.Value {
	return g.AddInput(name, ir.TensorType(dt, ir.ShapeOf(dims...)))
}

func op(g *ir.Graph, typ, name string, ins ...*ir.Value) *ir.Value {
	return g.AddNode(typ, "", name, ins, []string{name}).Outputs[0]
}

func model(t testing.TB, g *ir.Graph) *ir.Model {
	t.Helper()
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

func preset(t testing.TB, name string) *hw.Hardware {
	h, err := hw.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func run(t testing.TB, m *ir.Model, h *hw.Hardware, opt Options) *Result {
	t.Helper()
	r, err := Run(m, h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func chain(n int, elems int64) *ir.Graph {
	g := ir.NewGraph("chain")
	v := in(g, "x", ir.Float32, elems)
	for i := 0; i < n; i++ {
		v = op(g, "Relu", fmt.Sprintf("relu_%d", i), v)
	}
	g.Outputs = []*ir.Value{v}
	return g
}

// A chain of 1,000 tiny elementwise ops is launch-bound: about 1,000 x
// (launch + dispatch), not ~0 (wolong issue 3).
func TestLaunchBoundChain(t *testing.T) {
	for _, name := range []string{"v100", "a100", "h100", "h200"} {
		t.Run(name, func(t *testing.T) {
			h := preset(t, name)
			r := run(t, model(t, chain(1000, 16)), h, Options{})
			want := 1000 * (h.LaunchUs + h.DispatchUs) * 1e-6
			if math.Abs(r.TotalS/want-1) > 0.05 {
				t.Errorf("1000 tiny ops: %.3f ms, want about %.3f ms (1000 x launch+dispatch)", r.TotalS*1e3, want*1e3)
			}
			if r.Kernels != 1000 {
				t.Errorf("kernels = %d, want 1000", r.Kernels)
			}
			for _, tk := range r.Tasks {
				if tk.Est.Bound != "overhead" {
					t.Fatalf("%s bound %s, want overhead", tk.Name(), tk.Est.Bound)
				}
			}
			if r.Streams[0].HostWaitS < 0.5*r.TotalS {
				t.Errorf("stream idle waiting for the host %.3f ms of %.3f ms: expected mostly host-bound", r.Streams[0].HostWaitS*1e3, r.TotalS*1e3)
			}
		})
	}
}

// checkTotals verifies that totals equal the sum over the timeline and the
// critical path is at most the busy time.
func checkTotals(t *testing.T, r *Result) {
	t.Helper()
	checkBreakdown(t, r)
	var flops, bytes, busy float64
	var kernels int64
	byStream := map[int][]Task{}
	for _, tk := range r.Tasks {
		flops += tk.Est.FLOPs
		bytes += tk.Est.Bytes
		kernels += tk.Est.Kernels
		if tk.Stream >= 0 {
			busy += tk.End - tk.Start
			byStream[tk.Stream] = append(byStream[tk.Stream], tk)
		}
		if tk.End > r.TotalS+1e-12 {
			t.Errorf("%s ends at %g after the total %g", tk.Name(), tk.End, r.TotalS)
		}
	}
	if flops != r.FLOPs || bytes != r.Bytes || kernels != r.Kernels {
		t.Errorf("totals %g/%g/%d, timeline sums %g/%g/%d", r.FLOPs, r.Bytes, r.Kernels, flops, bytes, kernels)
	}
	if math.Abs(busy-r.BusyS) > 1e-9*r.TotalS {
		t.Errorf("busy %g, timeline sum %g", r.BusyS, busy)
	}
	for s, ts := range byStream {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Start < ts[j].Start })
		var sum, idle, prev float64
		for _, tk := range ts {
			if tk.Start < prev-1e-15 {
				t.Errorf("stream %d: %s starts at %g before the previous kernel ends at %g", s, tk.Name(), tk.Start, prev)
			}
			idle += tk.Start - prev
			sum += tk.End - tk.Start
			prev = tk.End
		}
		idle += r.TotalS - prev
		if math.Abs(sum+idle-r.TotalS) > 1e-9*r.TotalS {
			t.Errorf("stream %d: busy %g + idle %g != total %g", s, sum, idle, r.TotalS)
		}
		if math.Abs(idle-r.Streams[s].IdleS) > 1e-9*r.TotalS {
			t.Errorf("stream %d: idle %g, reported %g", s, idle, r.Streams[s].IdleS)
		}
	}
	if r.CriticalPathS > r.BusyS*(1+1e-12) {
		t.Errorf("critical path %g > busy %g", r.CriticalPathS, r.BusyS)
	}
}

// branches builds k independent MatMul chains of depth d joined by Sum.
func branches(k, d int, size int64) *ir.Graph {
	g := ir.NewGraph("branches")
	x := in(g, "x", ir.Float16, size, size)
	w := in(g, "w", ir.Float16, size, size)
	var outs []*ir.Value
	for b := 0; b < k; b++ {
		v := x
		for i := 0; i < d; i++ {
			v = op(g, "MatMul", fmt.Sprintf("mm_%d_%d", b, i), v, w)
		}
		outs = append(outs, v)
	}
	s := g.AddNode("Sum", "", "sum", outs, []string{"y"})
	g.Outputs = s.Outputs
	return g
}

// narrow builds k independent single-tile MatMuls (128 x 65536 x 128:
// long, but one SM busy) joined by Sum.
func narrow(k int) *ir.Graph {
	g := ir.NewGraph("narrow")
	x := in(g, "x", ir.Float16, 128, 65536)
	var outs []*ir.Value
	for b := 0; b < k; b++ {
		w := in(g, fmt.Sprintf("w%d", b), ir.Float16, 65536, 128)
		outs = append(outs, op(g, "MatMul", fmt.Sprintf("mm_%d", b), x, w))
	}
	s := g.AddNode("Sum", "", "sum", outs, []string{"y"})
	g.Outputs = s.Outputs
	return g
}

func TestTotalsAndStreams(t *testing.T) {
	h := preset(t, "h100")
	// full-device kernels gain nothing from more streams
	full1 := run(t, model(t, branches(4, 3, 4096)), h, Options{})
	full4 := run(t, model(t, branches(4, 3, 4096)), h, Options{Streams: 4})
	checkTotals(t, full1)
	checkTotals(t, full4)
	if full4.TotalS < 0.95*full1.TotalS {
		t.Errorf("full-device kernels overlapped: 4 streams %.3f ms vs 1 stream %.3f ms", full4.TotalS*1e3, full1.TotalS*1e3)
	}
	one := run(t, model(t, narrow(4)), h, Options{})
	four := run(t, model(t, narrow(4)), h, Options{Streams: 4})
	checkTotals(t, one)
	checkTotals(t, four)
	if math.Abs(one.CriticalPathS-one.BusyS) < 1e-9 {
		t.Errorf("4 branches: critical path %g should be below busy %g", one.CriticalPathS, one.BusyS)
	}
	if !(four.TotalS < 0.5*one.TotalS) {
		t.Errorf("4 streams %.3f ms not well below 1 stream %.3f ms", four.TotalS*1e3, one.TotalS*1e3)
	}
	if four.TotalS < four.CriticalPathS {
		t.Errorf("makespan %g below critical path %g", four.TotalS, four.CriticalPathS)
	}
	if one.FLOPs != four.FLOPs {
		t.Errorf("FLOPs depend on streams: %g vs %g", one.FLOPs, four.FLOPs)
	}
	c := run(t, model(t, chain(50, 1<<20)), h, Options{})
	checkTotals(t, c)
	if math.Abs(c.CriticalPathS-c.BusyS) > 1e-12 {
		t.Errorf("a chain's critical path %g must equal its busy time %g", c.CriticalPathS, c.BusyS)
	}
}

func TestPeakMemory(t *testing.T) {
	const n = 1 << 24 // 64 MiB of float32: kernels long enough to stay ahead of the host
	s := 4.0 * n
	tests := []struct {
		name  string
		build func() *ir.Graph
		peak  float64
	}{
		{"chain keeps input and output", func() *ir.Graph { return chain(3, n) }, 2 * s},
		{"residual keeps x alive", func() *ir.Graph {
			g := ir.NewGraph("res")
			x := in(g, "x", ir.Float32, n)
			a := op(g, "Relu", "a", x)
			b := op(g, "Relu", "b", a)
			y := op(g, "Add", "y", x, b)
			g.Outputs = []*ir.Value{y}
			return g
		}, 3 * s},
		{"views alias", func() *ir.Graph {
			g := ir.NewGraph("view")
			x := in(g, "x", ir.Float32, n)
			sh := g.AddInitializer((&ir.Tensor{Name: "shape", DType: ir.Int64, Dims: []int64{2}}).SetInt64s([]int64{n / 4, 4}))
			a := op(g, "Relu", "a", x)
			r := op(g, "Reshape", "r", a, sh)
			y := op(g, "Relu", "y", r)
			g.Outputs = []*ir.Value{y}
			return g
		}, 2*s + 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, model(t, tc.build()), preset(t, "h100"), Options{})
			if r.PeakMemoryBytes != tc.peak {
				t.Errorf("peak %g bytes, want %g", r.PeakMemoryBytes, tc.peak)
			}
		})
	}
}

// mlp: y = Relu(x W1) W2 with W1, W2 initializers.
func mlp(batch ir.Dim) *ir.Graph {
	g := ir.NewGraph("mlp")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.DimsShape(batch, ir.D(256))))
	w1 := g.AddInitializer(&ir.Tensor{Name: "w1", DType: ir.Float32, Dims: []int64{256, 512}, Raw: make([]byte, 4*256*512)})
	w2 := g.AddInitializer(&ir.Tensor{Name: "w2", DType: ir.Float32, Dims: []int64{512, 10}, Raw: make([]byte, 4*512*10)})
	h := op(g, "MatMul", "fc1", x, w1)
	a := op(g, "Relu", "relu", h)
	y := op(g, "MatMul", "fc2", a, w2)
	g.Outputs = []*ir.Value{y}
	return g
}

func TestTrainMode(t *testing.T) {
	h := preset(t, "a100")
	inf := run(t, model(t, mlp(ir.D(64))), h, Options{})
	tr := run(t, model(t, mlp(ir.D(64))), h, Options{Mode: Train})
	checkTotals(t, tr)
	params := 256.0*512 + 512*10
	fc1, relu, fc2 := 2*64*256*512.0, 64*512.0, 2*64*512*10.0
	want := (fc1 + relu + fc2) + (2*fc1 + relu + 2*fc2) + 12*params
	if tr.FLOPs != want {
		t.Errorf("train FLOPs %g, want %g (forward + 2x weighted backward + 1x relu + Adam)", tr.FLOPs, want)
	}
	if inf.FLOPs != fc1+relu+fc2 {
		t.Errorf("inference FLOPs %g", inf.FLOPs)
	}
	if tr.OptimizerBytes != 8*params || tr.WeightBytes != 4*params {
		t.Errorf("weights %g optimizer %g bytes, want %g and %g", tr.WeightBytes, tr.OptimizerBytes, 4*params, 8*params)
	}
	if !(tr.PeakMemoryBytes > inf.PeakMemoryBytes+tr.OptimizerBytes) {
		t.Errorf("train peak %g not above inference %g + optimizer state", tr.PeakMemoryBytes, inf.PeakMemoryBytes)
	}
	if tr.Kernels != 3+5+1 {
		t.Errorf("train kernels %d, want 3 forward + 5 backward + 1 update", tr.Kernels)
	}
	last := tr.Tasks[len(tr.Tasks)-1]
	if last.Phase != Optimizer || last.End != tr.TotalS {
		t.Errorf("last task %s (%s) should be the optimizer, ending the step", last.Name(), last.Phase)
	}
}

func TestBatch(t *testing.T) {
	g := mlp(ir.S("N"))
	m := model(t, g)
	if _, err := Run(m, preset(t, "h100"), Options{Batch: 8}); err == nil {
		t.Errorf("batch 8 on a model not inferred at it: no error")
	}
	ir.InferModel(m, ir.InferOptions{Inputs: BatchInputs(m.Graph, 8, nil)})
	r := run(t, m, preset(t, "h100"), Options{Batch: 8})
	want := 2*8*256*512.0 + 8*512 + 2*8*512*10.0
	if r.FLOPs != want || r.UnknownNodes != 0 {
		t.Errorf("batch 8: FLOPs %g (unknown nodes %d), want %g", r.FLOPs, r.UnknownNodes, want)
	}
	if !strings.Contains(strings.Join(r.Assumptions, "\n"), "batch 8") {
		t.Errorf("assumptions do not state the batch: %q", r.Assumptions)
	}
	// without --batch the symbolic dim leaves costs unknown, with a warning
	u := run(t, model(t, mlp(ir.S("N"))), preset(t, "h100"), Options{})
	if u.UnknownNodes != 3 || len(u.Warnings) == 0 || !strings.Contains(u.Warnings[0], "lower bound") {
		t.Errorf("unknown nodes %d warnings %q", u.UnknownNodes, u.Warnings)
	}
}

func TestAssumptionsStated(t *testing.T) {
	r := run(t, model(t, chain(2, 16)), preset(t, "h200"), Options{})
	all := strings.Join(r.Assumptions, "\n")
	for _, want := range []string{"hardware h200", "efficiency", "launch", "without a static trip count run 10 times", "stream", "batch"} {
		if !strings.Contains(all, want) {
			t.Errorf("assumptions do not mention %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "--") {
		t.Errorf("assumptions name a command-line flag without cost.Options.Settings:\n%s", all)
	}
}

// bigGraph generates an n-node graph: a trunk of elementwise ops with a
// MatMul every 8th node and a residual Add every 4th.
func bigGraph(n int) *ir.Graph {
	g := ir.NewGraph("big")
	x := in(g, "x", ir.Float16, 64, 256)
	w := in(g, "w", ir.Float16, 256, 256)
	v, skip := x, x
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("n%d", i)
		switch {
		case i%8 == 0:
			v = op(g, "MatMul", name, v, w)
		case i%4 == 0:
			v, skip = op(g, "Add", name, v, skip), v
		default:
			v = op(g, "Relu", name, v)
		}
	}
	g.Outputs = []*ir.Value{v}
	return g
}

func BenchmarkSimulate100k(b *testing.B) {
	m := model(b, bigGraph(100_000))
	h := preset(b, "h100")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(m, h, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSimulate100kUnderASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("100k-node simulation skipped in -short")
	}
	m := model(t, bigGraph(100_000))
	start, cpu0 := time.Now(), cpuTime()
	r := run(t, m, preset(t, "h100"), Options{})
	wall, el := time.Since(start), cpuTime()-cpu0
	if len(r.Tasks) != 100_000 || r.UnknownNodes != 0 {
		t.Fatalf("tasks %d unknown %d", len(r.Tasks), r.UnknownNodes)
	}
	checkTotals(t, r)
	t.Logf("100k nodes simulated in %v CPU (%v wall)", el, wall)
	// CPU time (all threads, GC included) rather than wall time, so a
	// loaded machine does not fail the test.
	if el > 2*time.Second {
		t.Errorf("100k-node simulation used %v of CPU, want well under a second (2 s allowed)", el)
	}
}

func TestBatchInputs(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]ir.Shape
		want   map[string]string
	}{
		{"symbolic dim 0 only", map[string]ir.Shape{
			"x": ir.DimsShape(ir.S("N"), ir.D(3)), "w": ir.ShapeOf(3, 3)},
			map[string]string{"x": "[8,3]"}},
		{"fixed batch: inputs sharing the first input's dim 0", map[string]ir.Shape{
			"a": ir.ShapeOf(2, 5), "b": ir.ShapeOf(2, 7), "c": ir.ShapeOf(5, 5)},
			map[string]string{"a": "[8,5]", "b": "[8,7]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("g")
			for _, name := range []string{"a", "b", "c", "x", "w"} {
				if s, ok := tc.inputs[name]; ok {
					g.AddInput(name, ir.TensorType(ir.Float32, s))
				}
			}
			got := BatchInputs(g, 8, nil)
			if len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k].String() != v {
					t.Errorf("%s: %s, want %s", k, got[k], v)
				}
			}
		})
	}
}
