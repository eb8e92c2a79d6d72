package simulate_test

// This file checks the GPU presets against published measurements: every
// case under testdata/published (schema in its README.md) is built as an
// ONNX graph (one op, or a generated model), predicted on its preset, and
// compared with the measured time. The test prints one row per case and
// the MAPE, and fails when the MAPE or one case's error passes a guard.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

const (
	publishedDir = "../testdata/published"
	// sweepFile is the op list bench/gpu/time_ops.py times on a lent GPU:
	// every single-op case's op, in wolong microbench's format.
	sweepFile = "../bench/gpu/published_ops.json"
)

var update = flag.Bool("update", false, "rewrite "+sweepFile+" from the published cases")

// Guards, set from the result when the set was assembled (see the README's
// "Measured" table): a change of the GPU cost model that moves the MAPE
// past maxMAPE, or one case past maxCaseErr, fails.
const (
	maxMAPE = 0.30
	// maxRatio bounds one case: predicted / measured within [1/maxRatio,
	// maxRatio].
	maxRatio = 3.5
)

// pubFile is one source: where the numbers come from and the cases taken
// from it.
type pubFile struct {
	Source struct {
		Title string `json:"title"`
		URL   string `json:"url"`
		Where string `json:"where"`
		Date  string `json:"date"`
		Notes string `json:"notes"`
	} `json:"source"`
	Cases []pubCase `json:"cases"`
}

type pubCase struct {
	Name string `json:"name"`
	HW   string `json:"hw"`
	// HWSet overrides fields of the preset (the --hw file schema, merged
	// into the preset's JSON): the library behaviour of the measurement's
	// era, e.g. {"tensor_core_align": 8} for cuBLAS before 11.0.
	HWSet     map[string]any `json:"hw_set"`
	Op        *opSpec        `json:"op"`
	Model     *modelSpec     `json:"model"`
	Precision string         `json:"precision"`
	Measured  measured       `json:"measured"`
	// Predict is what the measurement times: "device" (kernel time of
	// back-to-back calls: the device's busy time) or "total" (the
	// simulated run, host issue included).
	Predict string `json:"predict"`
	Note    string `json:"note"`
}

// opSpec is one ONNX node whose inputs are all graph inputs.
type opSpec struct {
	Type   string         `json:"type"`
	Domain string         `json:"domain"`
	Opset  int64          `json:"opset"`
	Inputs []tensorSpec   `json:"inputs"`
	Attrs  map[string]any `json:"attrs"`
	NOut   int            `json:"outputs"`
}

type tensorSpec struct {
	Shape []int64 `json:"shape"`
	DType string  `json:"dtype"`
}

// modelSpec is a model from internal/modelgen.
type modelSpec struct {
	Generator string `json:"generator"`
	Batch     int64  `json:"batch"`
	DType     string `json:"dtype"` // cost every float tensor as this type ("": float32)
	Level     int    `json:"level"` // -O level the graph is optimized at first
	TF32      bool   `json:"tf32"`
}

// measured is the published figure: a time ("us", "ms"), a rate of the
// source's FLOP count ("TFLOP/s", with flops) or a throughput ("items/s",
// with items per run).
type measured struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	FLOPs float64 `json:"flops"`
	Items float64 `json:"items"`
}

// seconds converts the figure to the time of one run.
func (m measured) seconds() (float64, error) {
	if !(m.Value > 0) {
		return 0, fmt.Errorf("measured value %g not positive", m.Value)
	}
	switch m.Unit {
	case "us":
		return m.Value * 1e-6, nil
	case "ms":
		return m.Value * 1e-3, nil
	case "TFLOP/s":
		if !(m.FLOPs > 0) {
			return 0, fmt.Errorf("TFLOP/s needs the source's flops per run")
		}
		return m.FLOPs / (m.Value * 1e12), nil
	case "items/s":
		if !(m.Items > 0) {
			return 0, fmt.Errorf("items/s needs items per run")
		}
		return m.Items / m.Value, nil
	}
	return 0, fmt.Errorf("unit %q: want us, ms, TFLOP/s or items/s", m.Unit)
}

// loadPublished reads every source file, by base name, and the names
// sorted.
func loadPublished(t *testing.T) (map[string]pubFile, []string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(publishedDir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no published cases under %s (%v)", publishedDir, err)
	}
	out := map[string]pubFile{}
	var names []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.DisallowUnknownFields()
		var f pubFile
		if err := d.Decode(&f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.Source.Title == "" || f.Source.URL == "" || f.Source.Where == "" || len(f.Cases) == 0 {
			t.Fatalf("%s: source title, url, where and at least one case are required", p)
		}
		out[filepath.Base(p)] = f
		names = append(names, filepath.Base(p))
	}
	return out, names // Glob returns paths sorted
}

// buildOp returns a one-node model of spec.
func buildOp(spec *opSpec) (*ir.Model, error) {
	opset := spec.Opset
	if opset == 0 {
		opset = 17
	}
	b := modelgen.New(spec.Type, opset)
	if spec.Domain != "" {
		b.M.Opsets = append(b.M.Opsets, ir.OpsetID{Domain: spec.Domain, Version: 1})
	}
	var ins []*ir.Value
	for i, t := range spec.Inputs {
		if len(t.Shape) == 0 { // an absent optional input
			ins = append(ins, nil)
			continue
		}
		dt, ok := ir.ParseDType(t.DType)
		if !ok {
			return nil, fmt.Errorf("input %d: dtype %q", i, t.DType)
		}
		dims := make([]any, len(t.Shape))
		for j, d := range t.Shape {
			dims[j] = d
		}
		ins = append(ins, b.Input(fmt.Sprintf("in%d", i), dt, dims...))
	}
	var attrs []*ir.Attr
	names := make([]string, 0, len(spec.Attrs))
	for k := range spec.Attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		a, err := attrOf(k, spec.Attrs[k])
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
	}
	n := max(spec.NOut, 1)
	outs := make([]string, n)
	for i := range outs {
		outs[i] = fmt.Sprintf("out%d", i)
	}
	node := b.G.AddNode(spec.Type, spec.Domain, spec.Type, ins, outs, attrs...)
	b.Output(node.Outputs...)
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	return m, nil
}

// attrOf converts a JSON attribute: an integer, a list of integers or a
// string.
func attrOf(name string, v any) (*ir.Attr, error) {
	integral := func(f float64) (int64, error) {
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("attribute %s: %g is not an integer", name, f)
		}
		return int64(f), nil
	}
	switch x := v.(type) {
	case float64:
		i, err := integral(x)
		return modelgen.Int(name, i), err
	case string:
		return modelgen.Str(name, x), nil
	case []any:
		ints := make([]int64, len(x))
		for j, e := range x {
			f, ok := e.(float64)
			if !ok {
				return nil, fmt.Errorf("attribute %s: element %v is not a number", name, e)
			}
			i, err := integral(f)
			if err != nil {
				return nil, err
			}
			ints[j] = i
		}
		return modelgen.Ints(name, ints...), nil
	}
	return nil, fmt.Errorf("attribute %s: %v: want an integer, integer list or string", name, v)
}

// generators are the models cases may name.
var generators = map[string]func() *ir.Model{
	"resnet50": modelgen.ResNet50,
}

// predictCase returns the predicted time of one run of c, in seconds,
// and the totals behind it for the table.
func predictCase(c pubCase, models map[string]*ir.Model) (float64, *simulate.Result, error) {
	h, err := hw.Resolve(c.HW)
	if err != nil {
		return 0, nil, err
	}
	if len(c.HWSet) > 0 {
		if h, err = overlay(h, c.HWSet); err != nil {
			return 0, nil, err
		}
	}
	if h.Kind != "gpu" {
		return 0, nil, fmt.Errorf("preset %s is not a GPU", c.HW)
	}
	var m *ir.Model
	opt := simulate.Options{}
	switch {
	case c.Op != nil && c.Model == nil:
		if m, err = buildOp(c.Op); err != nil {
			return 0, nil, err
		}
	case c.Model != nil && c.Op == nil:
		ms := c.Model
		gen, ok := generators[ms.Generator]
		if !ok {
			return 0, nil, fmt.Errorf("no generator %q", ms.Generator)
		}
		if ms.Batch <= 0 {
			return 0, nil, fmt.Errorf("model cases need a batch")
		}
		// the batch is fixed before optimizing: fused bodies keep the
		// shapes they were built with
		key := fmt.Sprintf("%s -O%d batch %d", ms.Generator, ms.Level, ms.Batch)
		if m = models[key]; m == nil {
			m = gen()
			ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"N": ms.Batch}})
			if ms.Level > 0 {
				if _, err := optimize.Run(m, optimize.Options{Level: ms.Level, VerifyEach: true}); err != nil {
					return 0, nil, err
				}
			}
			models[key] = m
		}
		opt.Cost.TF32 = ms.TF32
		if ms.DType != "" {
			dt, ok := ir.ParseDType(ms.DType)
			if !ok || !dt.IsFloat() {
				return 0, nil, fmt.Errorf("model dtype %q", ms.DType)
			}
			opt.Cost.DType = dt
		}
	default:
		return 0, nil, fmt.Errorf("a case needs exactly one of op and model")
	}
	r, err := simulate.Run(m, h, opt)
	if err != nil {
		return 0, nil, err
	}
	if r.UnknownNodes > 0 {
		return 0, nil, fmt.Errorf("%d nodes of unknown cost", r.UnknownNodes)
	}
	switch c.Predict {
	case "device":
		return r.BusyS, r, nil
	case "total":
		return r.TotalS, r, nil
	}
	return 0, nil, fmt.Errorf("predict %q: want device or total", c.Predict)
}

// overlay returns h with the fields in set replaced (objects merge
// recursively), parsed and validated as a hardware file.
func overlay(h *hw.Hardware, set map[string]any) (*hw.Hardware, error) {
	var buf bytes.Buffer
	if err := h.WriteJSON(&buf); err != nil {
		return nil, err
	}
	var base map[string]any
	if err := json.Unmarshal(buf.Bytes(), &base); err != nil {
		return nil, err
	}
	var merge func(dst, src map[string]any)
	merge = func(dst, src map[string]any) {
		for k, v := range src {
			if sub, ok := v.(map[string]any); ok {
				if d, ok := dst[k].(map[string]any); ok {
					merge(d, sub)
					continue
				}
			}
			dst[k] = v
		}
	}
	merge(base, set)
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	return hw.Parse(bytes.NewReader(b))
}

// TestPublishedGPU predicts every published case and reports the error.
func TestPublishedGPU(t *testing.T) {
	files, names := loadPublished(t)
	models := map[string]*ir.Model{}
	type row struct {
		file, name, hw, precision string
		meas, pred                float64
	}
	var rows []row
	seen := map[string]bool{}
	for _, fn := range names {
		for _, c := range files[fn].Cases {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("%s: case name %q empty or repeated", fn, c.Name)
			}
			seen[c.Name] = true
			meas, err := c.Measured.seconds()
			if err != nil {
				t.Fatalf("%s: %s: %v", fn, c.Name, err)
			}
			pred, res, err := predictCase(c, models)
			if err != nil {
				t.Fatalf("%s: %s: %v", fn, c.Name, err)
			}
			// the graph is the source's problem: a GEMM or convolution
			// has the FLOPs the source counted
			if c.Op != nil && c.Measured.FLOPs > 0 && (c.Op.Type == "MatMul" || c.Op.Type == "Gemm" || c.Op.Type == "Conv") {
				if math.Abs(res.FLOPs/c.Measured.FLOPs-1) > 1e-6 {
					t.Errorf("%s: graph has %g FLOPs, the source counts %g", c.Name, res.FLOPs, c.Measured.FLOPs)
				}
			}
			rows = append(rows, row{strings.TrimSuffix(fn, ".json"), c.Name, c.HW, c.Precision, meas, pred})
		}
	}
	var sum, worst float64
	var worstName string
	by := map[string][]float64{} // |error| per preset and per source
	t.Logf("%-48s %-5s %12s %12s %8s  %s", "case", "hw", "measured", "predicted", "error", "source")
	for _, r := range rows {
		e := (r.pred - r.meas) / r.meas
		sum += math.Abs(e)
		by["preset "+r.hw] = append(by["preset "+r.hw], math.Abs(e))
		by["source "+r.file] = append(by["source "+r.file], math.Abs(e))
		if math.Abs(e) > math.Abs(worst) {
			worst, worstName = e, r.name
		}
		t.Logf("%-48s %-5s %12s %12s %+7.1f%%  %s", r.name, r.hw, fmtTime(r.meas), fmtTime(r.pred), 100*e, r.file)
		if ratio := r.pred / r.meas; ratio > maxRatio || ratio < 1/maxRatio {
			t.Errorf("%s: predicted %s, measured %s: off by more than %gx", r.name, fmtTime(r.pred), fmtTime(r.meas), maxRatio)
		}
	}
	groups := make([]string, 0, len(by))
	for g := range by {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		var s float64
		for _, e := range by[g] {
			s += e
		}
		t.Logf("  %-42s %2d cases, MAPE %5.1f%%", g, len(by[g]), 100*s/float64(len(by[g])))
	}
	mape := sum / float64(len(rows))
	t.Logf("%d cases from %d sources: MAPE %.1f%%, worst %s %+.1f%%", len(rows), len(files), 100*mape, worstName, 100*worst)
	if len(rows) < 12 {
		t.Errorf("%d published cases, want at least 12", len(rows))
	}
	if mape > maxMAPE {
		t.Errorf("GPU MAPE %.1f%% over the published set, guard %.0f%%", 100*mape, 100*maxMAPE)
	}
}

// TestPublishedSweep checks that bench/gpu/published_ops.json lists the
// single-op cases' ops, as `wolong microbench` would list their graphs
// (go test ./simulate -run PublishedSweep -update rewrites it).
func TestPublishedSweep(t *testing.T) {
	files, names := loadPublished(t)
	type sweep struct {
		Model  string         `json:"model"`
		Format string         `json:"format"`
		Ops    []calibrate.Op `json:"ops"`
	}
	out := sweep{Model: "testdata/published (single-op cases)", Format: "wolong-microbench-1", Ops: []calibrate.Op{}}
	seen := map[string]bool{}
	for _, fn := range names {
		for _, c := range files[fn].Cases {
			if c.Op == nil {
				continue
			}
			m, err := buildOp(c.Op)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			ops, skipped := calibrate.DistinctOps(m.Graph)
			if len(ops) != 1 || len(skipped) > 0 {
				t.Fatalf("%s: %d ops, skipped %v", c.Name, len(ops), skipped)
			}
			op := ops[0]
			key := op.Domain + "|" + op.Op + "|" + op.DType + "|" + op.Inputs + "|" + op.Attributes
			if seen[key] {
				continue
			}
			seen[key] = true
			op.Nodes = []string{c.Name} // the case it times
			out.Ops = append(out.Ops, op)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(sweepFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(sweepFile)
	if err != nil {
		t.Fatalf("%v (go test ./simulate -run PublishedSweep -update)", err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("%s is stale: go test ./simulate -run PublishedSweep -update", sweepFile)
	}
}

func TestMeasuredSeconds(t *testing.T) {
	for _, tc := range []struct {
		m    measured
		want float64 // 0: an error
	}{
		{measured{Value: 250, Unit: "us"}, 250e-6},
		{measured{Value: 1.5, Unit: "ms"}, 1.5e-3},
		{measured{Value: 100, Unit: "TFLOP/s", FLOPs: 2e12}, 0.02},
		{measured{Value: 1000, Unit: "items/s", Items: 256}, 0.256},
		{measured{Value: 100, Unit: "TFLOP/s"}, 0},
		{measured{Value: 1000, Unit: "items/s"}, 0},
		{measured{Value: 0, Unit: "ms"}, 0},
		{measured{Value: 3, Unit: "s"}, 0},
	} {
		got, err := tc.m.seconds()
		if (err != nil) != (tc.want == 0) || (err == nil && math.Abs(got/tc.want-1) > 1e-12) {
			t.Errorf("%+v: got %g, %v; want %g", tc.m, got, err, tc.want)
		}
	}
}

func fmtTime(s float64) string {
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%.1f us", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3f ms", s*1e3)
	}
	return fmt.Sprintf("%.3f s", s)
}
