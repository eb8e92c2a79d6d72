package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// branchy builds two MatMul branches joined by Add, plus a Relu chain.
func branchy(t *testing.T) *ir.Model {
	g := ir.NewGraph("branchy")
	x := g.AddInput("x", ir.TensorType(ir.Float16, ir.ShapeOf(2048, 4096)))
	w1 := g.AddInput("w1", ir.TensorType(ir.Float16, ir.ShapeOf(4096, 4096)))
	w2 := g.AddInput("w2", ir.TensorType(ir.Float16, ir.ShapeOf(4096, 4096)))
	a := g.AddNode("MatMul", "", "mm_a", []*ir.Value{x, w1}, []string{"a"}).Outputs[0]
	b := g.AddNode("MatMul", "", "mm_b", []*ir.Value{x, w2}, []string{"b"}).Outputs[0]
	s := g.AddNode("Add", "", "add", []*ir.Value{a, b}, []string{"s"}).Outputs[0]
	for i := 0; i < 5; i++ {
		s = g.AddNode("Relu", "", fmt.Sprintf("relu_%d", i), []*ir.Value{s}, []string{fmt.Sprintf("r%d", i)}).Outputs[0]
	}
	g.Outputs = []*ir.Value{s}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

func simulateOn(t *testing.T, m *ir.Model, preset string, opt simulate.Options) *simulate.Result {
	t.Helper()
	h, err := hw.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	r, err := simulate.Run(m, h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestProfileJSON(t *testing.T) {
	r := simulateOn(t, branchy(t), "h100", simulate.Options{Streams: 2})
	p := NewProfile("branchy.onnx", r, []string{"import warning"})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"hardware", "total_ms", "flops", "bytes", "kernels", "peak_memory_bytes", "nodes", "assumptions", "warnings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["hardware"] != "h100" {
		t.Errorf("hardware = %v", doc["hardware"])
	}
	nodes := doc["nodes"].([]any)
	if len(nodes) != 8 {
		t.Fatalf("%d nodes, want 8", len(nodes))
	}
	var flops, timeMs float64
	for _, n := range nodes {
		m := n.(map[string]any)
		for _, k := range []string{"name", "op", "flops", "bytes", "time_ms", "bound"} {
			if _, ok := m[k]; !ok {
				t.Errorf("node %v lacks %q", m["name"], k)
			}
		}
		flops += m["flops"].(float64)
		timeMs += m["time_ms"].(float64)
	}
	// the totals are the sums over the timeline
	if flops != doc["flops"].(float64) {
		t.Errorf("node FLOPs sum %g, total %g", flops, doc["flops"])
	}
	if math.Abs(timeMs-doc["device_busy_ms"].(float64)) > 1e-9 {
		t.Errorf("node time sum %g ms, device busy %g ms", timeMs, doc["device_busy_ms"])
	}
	want := 2*2*2048*4096*4096.0 + 2048*4096*6
	if doc["flops"].(float64) != want {
		t.Errorf("flops %g, want %g", doc["flops"], want)
	}
	// by-op aggregation adds up
	var opFlops float64
	var opCount int
	for _, o := range p.Ops {
		opFlops += o.FLOPs
		opCount += o.Count
	}
	if opFlops != p.FLOPs || opCount != len(p.Nodes) {
		t.Errorf("op table sums %g FLOPs over %d nodes, want %g over %d", opFlops, opCount, p.FLOPs, len(p.Nodes))
	}
	if p.Ops[0].Op != "MatMul" || p.Ops[0].Count != 2 {
		t.Errorf("top op %+v, want MatMul x2", p.Ops[0])
	}
	if p.DType != "float16" || p.PeakTFLOPS != 989.4 {
		t.Errorf("dtype %s peak %g, want float16 at 989.4", p.DType, p.PeakTFLOPS)
	}
}

func TestProfileText(t *testing.T) {
	r := simulateOn(t, branchy(t), "h200", simulate.Options{Mode: simulate.Train})
	p := NewProfile("branchy.onnx", r, nil)
	for _, by := range []string{"node", "op"} {
		var buf bytes.Buffer
		if err := p.WriteText(&buf, by, 3); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"Hardware: h200", "Predicted step time", "TFLOP/s", "kernels launched", "Memory peak", "Assumptions:", "training: backward", "share"} {
			if !strings.Contains(out, want) {
				t.Errorf("--by %s output lacks %q:\n%s", by, want, out)
			}
		}
		if by == "node" && !strings.Contains(out, "Top 3 nodes") {
			t.Errorf("top-3 header missing:\n%s", out)
		}
	}
}

// validateTrace checks a Chrome-trace JSON document (Trace Event Format,
// JSON Object Format) and returns device busy time per track.
func validateTrace(t *testing.T, data []byte) map[int]float64 {
	t.Helper()
	var doc struct {
		TraceEvents []map[string]json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	if len(doc.TraceEvents) == 0 {
		t.Fatal("no traceEvents")
	}
	named := map[int]bool{}
	busy := map[int]float64{}
	last := map[int]float64{}
	for i, raw := range doc.TraceEvents {
		var e struct {
			Name *string  `json:"name"`
			Ph   *string  `json:"ph"`
			Ts   *float64 `json:"ts"`
			Dur  *float64 `json:"dur"`
			Pid  *int     `json:"pid"`
			Tid  *int     `json:"tid"`
		}
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if e.Name == nil || e.Ph == nil || e.Pid == nil || e.Tid == nil {
			t.Fatalf("event %d lacks name/ph/pid/tid: %s", i, b)
		}
		switch *e.Ph {
		case "M":
			if *e.Name == "thread_name" {
				named[*e.Tid] = true
			}
		case "X":
			if e.Ts == nil || e.Dur == nil || *e.Ts < 0 || *e.Dur < 0 {
				t.Fatalf("event %d: complete event needs ts >= 0 and dur >= 0: %s", i, b)
			}
			if !named[*e.Tid] {
				t.Errorf("event %d on unnamed track %d", i, *e.Tid)
			}
			if *e.Ts < last[*e.Tid]-1e-6 {
				t.Errorf("event %d overlaps the previous one on track %d", i, *e.Tid)
			}
			last[*e.Tid] = *e.Ts + *e.Dur
			busy[*e.Tid] += *e.Dur
		default:
			t.Fatalf("event %d: unexpected phase %q", i, *e.Ph)
		}
	}
	return busy
}

func TestTraceValidates(t *testing.T) {
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			r := simulateOn(t, branchy(t), "a100", simulate.Options{Streams: streams})
			var buf bytes.Buffer
			if err := WriteTrace(&buf, "branchy.onnx", r); err != nil {
				t.Fatal(err)
			}
			busy := validateTrace(t, buf.Bytes())
			var dev float64
			for tid, us := range busy {
				if tid != HostTid {
					dev += us
				}
			}
			if math.Abs(dev/1e6-r.BusyS) > 1e-9 {
				t.Errorf("trace device time %g s, simulation busy %g s", dev/1e6, r.BusyS)
			}
			if math.Abs(busy[HostTid]/1e6-r.HostBusyS) > 1e-9 {
				t.Errorf("trace host time %g s, simulation %g s", busy[HostTid]/1e6, r.HostBusyS)
			}
		})
	}
}

func TestHardwareListing(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHardwareList(&buf, hw.Presets()); err != nil {
		t.Fatal(err)
	}
	for _, name := range hw.Names() {
		if !strings.Contains(buf.String(), name) {
			t.Errorf("list lacks %s", name)
		}
	}
	h, _ := hw.Preset("h200")
	buf.Reset()
	if err := WriteHardware(&buf, h); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4800 GB/s", "Sources:", "769-798 TFLOP/s", "matmul"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("show h200 lacks %q", want)
		}
	}
}

// TestBranchRange: a profile of a model with an If its input decides
// states the range its two branches give, in the JSON and the text, and a
// model without one states none.
func TestBranchRange(t *testing.T) {
	g := ir.NewGraph("main")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(256, 256)))
	w := g.AddInput("w", ir.TensorType(ir.Float32, ir.ShapeOf(256, 256)))
	c := g.AddInput("c", ir.TensorType(ir.Bool, ir.ShapeOf()))
	th, el := ir.NewGraph("then"), ir.NewGraph("else")
	th.Parent, el.Parent = g, g
	th.Outputs = th.AddNode("MatMul", "", "then_mm", []*ir.Value{x, w}, []string{"y_then"}).Outputs
	el.Outputs = el.AddNode("Identity", "", "else_id", []*ir.Value{x}, []string{"y_else"}).Outputs
	n := g.AddNode("If", "", "if", []*ir.Value{c}, []string{"y"},
		&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: th}, &ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: el})
	th.ParentNode, el.ParentNode = n, n
	g.Outputs = n.Outputs
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	p := NewProfile("if.onnx", simulateOn(t, m, "cpu-1t", simulate.Options{Streams: 1}), nil)
	b := p.BranchRange
	if b == nil || b.Nodes != 1 || b.Rule != "auto" || !(b.LowMs < p.TotalMs && p.TotalMs < b.HighMs) {
		t.Fatalf("branch range %+v around %g ms", b, p.TotalMs)
	}
	var buf bytes.Buffer
	if err := p.WriteText(&buf, "node", 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "input-dependent branches: ") {
		t.Errorf("text lacks the range:\n%s", buf.String())
	}
	if q := NewProfile("b.onnx", simulateOn(t, branchy(t), "h100", simulate.Options{Streams: 1}), nil); q.BranchRange != nil {
		t.Errorf("a model without an If has a branch range %+v", q.BranchRange)
	}
}
