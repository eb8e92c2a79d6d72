package ir_test

// This file checks shape inference against the ONNX backend conformance
// data (../shared/onnx-node-tests) and the real-model corpus
// (../shared/models). For each test model, declared output and value_info
// types are stripped, the model is inferred, and every graph output's
// inferred dtype and shape are compared with the expected output tensor:
//
//   - exact:   every output's dtype and every dim inferred and equal;
//   - partial: nothing contradicts, but something is unknown or symbolic;
//   - wrong:   a dtype, rank or concrete dim contradicts the data.
//
// Outputs whose .pb is a Sequence/Optional/Map (the importer reads only
// TensorProto) are skipped and counted; a test with no comparable output
// is "skipped" and left out of the percentages.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// Thresholds for TestInferConformance on the node/ suite.
const (
	// minNodeExactPercent is the share of node/ tests whose outputs must
	// be inferred exactly (ONNX's own inference reaches about 75%).
	minNodeExactPercent = 75.0
	// maxWrong is the number of tests (all suites) allowed a contradicting
	// inferred type.
	maxWrong = 0
)

// conformanceRoot is the conformance data folder relative to this package.
var conformanceRoot = filepath.Join("..", "..", "shared", "onnx-node-tests")

// modelsRoot is the real-model corpus relative to this package.
var modelsRoot = filepath.Join("..", "..", "shared", "models")

type confClass int

const (
	confExact confClass = iota
	confPartial
	confWrong
	confSkipped // no tensor output to compare
	confError   // the model did not load
)

var confClassNames = [...]string{"exact", "partial", "wrong", "skipped", "load-error"}

// confResult is the verdict on one test model.
type confResult struct {
	suite, name string
	class       confClass
	op          string // op producing the first non-exact output
	origin      string // op where the first non-exact output's gap starts
	valueDep    bool   // partial because the gap needs values a graph input carries
	detail      string
	skippedOuts int
	uncoded     []string // diagnostics whose code is not one of ir.Codes()
}

// stripDeclared removes every declared type except those of graph inputs
// (in the main graph, subgraphs and function bodies), so inference cannot
// copy them.
func stripDeclared(m *ir.Model) {
	strip := func(g *ir.Graph) bool {
		inputs := map[*ir.Value]bool{}
		for _, v := range g.Inputs {
			inputs[v] = true
		}
		for _, n := range g.Nodes {
			for _, o := range n.Outputs {
				if o != nil && !inputs[o] {
					o.Declared = nil
				}
			}
		}
		for _, o := range g.Outputs {
			if o != nil && !inputs[o] {
				o.Declared = nil
			}
		}
		return true
	}
	m.Graph.Walk(strip)
	for _, f := range m.Functions {
		if f.Body != nil {
			f.Body.Walk(strip)
		}
	}
}

// compareOutput grades one inferred type against an expected tensor.
func compareOutput(got ir.Type, want *ir.Tensor) (confClass, string) {
	if got.Kind != ir.KindTensor {
		if got.Kind == ir.KindUnknown {
			return confPartial, "type unknown"
		}
		return confWrong, fmt.Sprintf("inferred %s, want a tensor", got)
	}
	cls := confExact
	why := ""
	if got.DType == ir.Undefined {
		cls, why = confPartial, "dtype unknown"
	} else if got.DType != want.DType {
		return confWrong, fmt.Sprintf("dtype %s, want %s", got.DType, want.DType)
	}
	s := got.Shape
	if !s.Known {
		return confPartial, "rank unknown"
	}
	if len(s.Dims) != len(want.Dims) {
		return confWrong, fmt.Sprintf("shape %s, want %v", s, want.Dims)
	}
	for i, d := range s.Dims {
		if d.IsConcrete() {
			if d.Val != want.Dims[i] {
				return confWrong, fmt.Sprintf("shape %s, want %v", s, want.Dims)
			}
			continue
		}
		if cls == confExact {
			cls, why = confPartial, fmt.Sprintf("shape %s, want %v", s, want.Dims)
		}
	}
	return cls, why
}

// runConformanceModel loads, strips, infers and grades one model against
// the expected outputs in outFiles (index = graph output index).
func runConformanceModel(suite, name, modelPath string, outFiles []string) confResult {
	r := confResult{suite: suite, name: name}
	m, err := importer.Load(modelPath, importer.Options{})
	if err != nil {
		r.class, r.detail = confError, err.Error()
		return r
	}
	defer m.Close()
	stripDeclared(m)
	r.uncoded = ir.UncodedDiagnostics(ir.InferModel(m, ir.InferOptions{}).Diagnostics)
	compared := 0
	r.class = confExact
	for i, path := range outFiles {
		if i >= len(m.Graph.Outputs) {
			break
		}
		want, err := importer.ReadTensorFile(path)
		if err != nil {
			r.skippedOuts++
			continue
		}
		compared++
		o := m.Graph.Outputs[i]
		cls, why := compareOutput(o.Type, want)
		if cls > r.class || (cls == confPartial && r.class == confExact) {
			r.class, r.op = cls, producerOp(o)
			r.detail = fmt.Sprintf("output %d %q: %s", i, o.Name, why)
			if n := gapOrigin(o); n != nil {
				r.origin = n.QualifiedOp()
				r.valueDep = valueDependent(n)
			}
		}
	}
	if compared == 0 {
		r.class = confSkipped
	}
	return r
}

// gapOrigin walks back from v to the first node whose output type is not
// full although all its inputs' types (and those of the outer values its
// subgraphs read) are: where inference lost track.
func gapOrigin(v *ir.Value) *ir.Node {
	n := v.Producer
	for steps := 0; n != nil && steps < 10000; steps++ {
		var next *ir.Node
		for _, in := range append(append([]*ir.Value{}, n.Inputs...), n.CapturedValues()...) {
			if in != nil && !typeFull(in.Type) && in.Producer != nil && in.Producer.Graph == n.Graph {
				next = in.Producer
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

func typeFull(t ir.Type) bool {
	switch t.Kind {
	case ir.KindTensor:
		return t.DType != ir.Undefined && t.Shape.IsFull()
	case ir.KindSequence, ir.KindOptional:
		return t.Elem != nil && typeFull(*t.Elem)
	case ir.KindMap:
		return true
	}
	return false
}

// valueDataDependent lists ops whose output sizes depend on the values of
// their data input itself.
var valueDataDependent = map[string]bool{
	"NonZero": true, "Unique": true, "NonMaxSuppression": true, "Compress": true, "StringSplit": true,
	"StringNormalizer": true, "ImageDecoder": true, "TfIdfVectorizer": false,
}

// shapeFromInput0 lists ops whose first input is a shape or count.
var shapeFromInput0 = map[string]bool{"ConstantOfShape": true, "Range": true, "Loop": true, "If": true,
	"BlackmanWindow": true, "HammingWindow": true, "HannWindow": true, "MelWeightMatrix": true}

// valueDependent reports whether node n's output size needs values that
// graph inputs carry: the op is inherently data-dependent, or one of its
// size inputs (input 0 for ConstantOfShape/Range/Loop/If, inputs 1.. for
// the rest) has no known value and derives from a non-constant graph
// input.
func valueDependent(n *ir.Node) bool {
	if valueDataDependent[n.Op] {
		return true
	}
	for i, in := range n.Inputs {
		if in == nil || in.Known() != nil || in.Const != nil || (i == 0 && !shapeFromInput0[n.Op]) {
			continue
		}
		if fromGraphInput(in, map[*ir.Value]bool{}) {
			return true
		}
	}
	// Subgraphs may read outer values as sizes.
	for _, in := range n.CapturedValues() {
		if in.Known() == nil && in.Const == nil && in.Type.DType.IsInt() && fromGraphInput(in, map[*ir.Value]bool{}) {
			return true
		}
	}
	return false
}

// fromGraphInput reports whether v derives from a non-constant graph input.
func fromGraphInput(v *ir.Value, seen map[*ir.Value]bool) bool {
	if v == nil || v.Const != nil || seen[v] {
		return false
	}
	seen[v] = true
	if v.Producer == nil {
		return true
	}
	for _, in := range v.Producer.Inputs {
		if fromGraphInput(in, seen) {
			return true
		}
	}
	return false
}

func producerOp(v *ir.Value) string {
	if v.Producer == nil {
		return "(input)"
	}
	return v.Producer.QualifiedOp()
}

// testDirResults runs every test folder under dir (model.onnx +
// test_data_set_0/output_N.pb).
func testDirResults(t *testing.T, suite, dir string) []confResult {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("conformance data absent: %v", err)
	}
	var out []confResult
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		mp := filepath.Join(dir, e.Name(), "model.onnx")
		if _, err := os.Stat(mp); err != nil {
			continue
		}
		var outs []string
		for i := 0; ; i++ {
			p := filepath.Join(dir, e.Name(), "test_data_set_0", fmt.Sprintf("output_%d.pb", i))
			if _, err := os.Stat(p); err != nil {
				break
			}
			outs = append(outs, p)
		}
		out = append(out, runConformanceModel(suite, e.Name(), mp, outs))
	}
	return out
}

// lightResults runs light/*.onnx against light_*_output_0.pb.
func lightResults(t *testing.T, dir string) []confResult {
	models, _ := filepath.Glob(filepath.Join(dir, "light_*.onnx"))
	var out []confResult
	for _, mp := range models {
		base := strings.TrimSuffix(filepath.Base(mp), ".onnx")
		want := filepath.Join(dir, base+"_output_0.pb")
		if _, err := os.Stat(want); err != nil {
			continue
		}
		out = append(out, runConformanceModel("light", base, mp, []string{want}))
	}
	return out
}

// confSummary counts results by class.
type confSummary struct {
	counts   [len(confClassNames)]int
	valueDep int // partial results that need graph-input values
}

func (s *confSummary) add(r confResult) {
	s.counts[r.class]++
	if r.class == confPartial && r.valueDep {
		s.valueDep++
	}
}

// graded is the number of tests that count towards the percentages.
func (s *confSummary) graded() int {
	return s.counts[confExact] + s.counts[confPartial] + s.counts[confWrong] + s.counts[confError]
}

func (s *confSummary) exactPercent() float64 {
	if s.graded() == 0 {
		return 0
	}
	return 100 * float64(s.counts[confExact]) / float64(s.graded())
}

func (s *confSummary) String() string {
	return fmt.Sprintf("%d graded: %d exact (%.1f%%), %d partial (%d need graph-input values), %d wrong, %d load errors; %d skipped (non-tensor outputs)",
		s.graded(), s.counts[confExact], s.exactPercent(), s.counts[confPartial], s.valueDep, s.counts[confWrong], s.counts[confError], s.counts[confSkipped])
}

func TestInferConformance(t *testing.T) {
	if _, err := os.Stat(conformanceRoot); err != nil {
		t.Skipf("conformance data absent: %v", err)
	}
	suites := []string{"node", "simple", "pytorch-converted", "pytorch-operator", filepath.Join("extra", "onnx2c-local_ops"), "light"}
	var all []confResult
	sums := map[string]*confSummary{}
	total := &confSummary{}
	for _, suite := range suites {
		dir := filepath.Join(conformanceRoot, suite)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: absent, skipped", suite)
			continue
		}
		var rs []confResult
		if suite == "light" {
			rs = lightResults(t, dir)
		} else {
			rs = testDirResults(t, suite, dir)
		}
		s := &confSummary{}
		for _, r := range rs {
			s.add(r)
			total.add(r)
		}
		sums[suite] = s
		all = append(all, rs...)
		t.Logf("%-28s %s", suite+":", s)
	}
	t.Logf("%-28s %s", "overall:", total)

	// Wrong and load-error tests, one line each; non-exact tests grouped
	// by the op producing the first non-exact output, with the op where
	// the gap starts, split into gaps and value-dependent results.
	var bad, noCode []string
	gaps := map[string][]string{}
	valueDep := map[string][]string{}
	for _, r := range all {
		for _, d := range r.uncoded {
			noCode = append(noCode, r.suite+"/"+r.name+": "+d)
		}
		switch r.class {
		case confWrong, confError:
			bad = append(bad, fmt.Sprintf("%s %s/%s [%s]: %s", confClassNames[r.class], r.suite, r.name, r.op, r.detail))
		}
		if r.class == confPartial || r.class == confWrong || r.class == confError {
			key := r.op
			if key == "" {
				key = "(load)"
			}
			if r.origin != "" && r.origin != r.op {
				key += " <- " + r.origin
			}
			if r.class == confPartial && r.valueDep {
				valueDep[key] = append(valueDep[key], r.suite+"/"+r.name)
			} else {
				gaps[key] = append(gaps[key], r.suite+"/"+r.name)
			}
		}
	}
	t.Logf("non-exact tests needing no graph-input values (inference gaps), by op <- gap origin:%s", groupLines(gaps))
	t.Logf("partial tests whose shapes need values graph inputs carry, by op <- gap origin:%s", groupLines(valueDep))
	if testing.Verbose() {
		for _, r := range all {
			if r.class == confPartial {
				t.Logf("partial %s/%s [%s]: %s", r.suite, r.name, r.op, r.detail)
			}
		}
	}
	if len(noCode) > 0 {
		t.Errorf("%d diagnostics without a code of ir.Codes():\n%s", len(noCode), strings.Join(noCode, "\n"))
	}
	wrong := total.counts[confWrong]
	if wrong > maxWrong {
		t.Errorf("%d tests have wrong inferred types (max %d):\n%s", wrong, maxWrong, strings.Join(bad, "\n"))
	} else if len(bad) > 0 {
		t.Logf("load errors:\n%s", strings.Join(bad, "\n"))
	}
	if s := sums["node"]; s != nil && s.exactPercent() < minNodeExactPercent {
		t.Errorf("node suite: %.1f%% exact, want >= %.1f%%", s.exactPercent(), minNodeExactPercent)
	}
}

// groupLines prints a name -> tests map, largest groups first.
func groupLines(groups map[string][]string) string {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(groups[keys[i]]) != len(groups[keys[j]]) {
			return len(groups[keys[i]]) > len(groups[keys[j]])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		names := groups[k]
		shown := names
		if len(shown) > 3 {
			shown = shown[:3]
		}
		fmt.Fprintf(&b, "\n  %-36s %3d  %s", k, len(names), strings.Join(shown, " "))
		if len(names) > len(shown) {
			b.WriteString(" ...")
		}
	}
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

// TestCompareOutput checks the grading itself.
func TestCompareOutput(t *testing.T) {
	want := &ir.Tensor{DType: ir.Float32, Dims: []int64{2, 3}}
	cases := []struct {
		name string
		got  ir.Type
		cls  confClass
	}{
		{"exact", ir.TensorType(ir.Float32, ir.ShapeOf(2, 3)), confExact},
		{"symbolic", ir.TensorType(ir.Float32, ir.DimsShape(ir.S("N"), ir.D(3))), confPartial},
		{"unknown rank", ir.TensorType(ir.Float32, ir.UnknownShape()), confPartial},
		{"unknown dtype", ir.TensorType(ir.Undefined, ir.ShapeOf(2, 3)), confPartial},
		{"nothing", ir.Type{}, confPartial},
		{"wrong dtype", ir.TensorType(ir.Float64, ir.ShapeOf(2, 3)), confWrong},
		{"wrong rank", ir.TensorType(ir.Float32, ir.ShapeOf(6)), confWrong},
		{"wrong dim", ir.TensorType(ir.Float32, ir.DimsShape(ir.Unknown(), ir.D(4))), confWrong},
		{"sequence", ir.Type{Kind: ir.KindSequence}, confWrong},
	}
	for _, tc := range cases {
		if got, why := compareOutput(tc.got, want); got != tc.cls {
			t.Errorf("%s: %s (%s), want %s", tc.name, confClassNames[got], why, confClassNames[tc.cls])
		}
	}
}

// modelDimValue overrides the value 1 given to symbolic and unknown input
// dims for models whose convolutional front-end needs a longer input.
var modelDimValue = map[string]int64{
	"rnn/silero_vad_16k_op15.onnx":             512, // STFT conv, kernel 256
	"rnn/silero_vad_half.onnx":                 512,
	"rnn/silero_vad_micro_2021.onnx":           512,
	"rnn/silero_vad_mini_2021.onnx":            512,
	"rnn/tract_qtdnn_10x5_101_i32_biases.onnx": 16, // conv, kernel 3
}

// modelDataDependent lists models whose output shapes depend on values
// carried by graph inputs (so they cannot be fully inferred), with why.
var modelDataDependent = map[string]string{
	"cnn/yolov8_nms_postprocess.onnx":                "NonMaxSuppression keeps a score-dependent number of boxes",
	"controlflow/burn_if_conv2d.onnx":                "If on the condition input: the branches give 4 or 3 channels",
	"controlflow/burn_loop_scan_outputs.onnx":        "the Loop trip count is the M input",
	"controlflow/occ_test_subgraph_if_castlike.onnx": "If on input values: the branches give [1] or []",
	"rnn/kinference_pos_tagger_lstm_loop.onnx":       "the Loop trip count and a Reshape shape are graph inputs",
	"rnn/silero_vad_v5.onnx":                         "If on the sample-rate input (8 kHz and 16 kHz branches)",
	"rnn/silero_vad_v6.2.onnx":                       "If on the sample-rate input (8 kHz and 16 kHz branches)",
	"transformer/tract_gqa_decode_rope.onnx":         "GroupQueryAttention's present length is the total_sequence_length input",
}

// TestModelsInfer imports and infers every model of the real-model corpus:
// the only diagnostics allowed are opaque-op warnings, and for models whose
// ops are all registered every graph output must be fully inferred once
// each symbolic input dim is given the value 1.
func TestModelsInfer(t *testing.T) {
	var paths []string
	err := filepath.WalkDir(modelsRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil || len(paths) == 0 {
		t.Skipf("model corpus absent: %v", err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name, _ := filepath.Rel(modelsRoot, p)
		name = filepath.ToSlash(name)
		t.Run(name, func(t *testing.T) {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			defer m.Close()
			stripDeclared(m)
			res := ir.InferModel(m, ir.InferOptions{})
			for _, d := range res.Diagnostics {
				if d.Code != "opaque" {
					t.Errorf("%s", d)
				}
			}
			if len(res.Opaque) > 0 {
				return
			}
			// Symbolic dims get the value 1 by name; unnamed unknown dims
			// get it through an input-shape override.
			dimValue := int64(1)
			if v, ok := modelDimValue[name]; ok {
				dimValue = v
			}
			dims := map[string]int64{}
			inputs := map[string]ir.Shape{}
			for _, in := range m.Graph.Inputs {
				if in.Const != nil {
					continue
				}
				s := in.Type.Shape
				for i, d := range s.Dims {
					if d.IsSymbolic() {
						dims[d.Sym] = dimValue
					}
					if d.IsUnknown() {
						fixed := s.Clone()
						for j, e := range fixed.Dims {
							if !e.IsConcrete() {
								fixed.Dims[j] = ir.D(dimValue)
							}
						}
						inputs[in.Name] = fixed
						_ = i
						break
					}
				}
			}
			m2, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Fatalf("second import: %v", err)
			}
			defer m2.Close()
			stripDeclared(m2)
			ir.InferModel(m2, ir.InferOptions{Dims: dims, Inputs: inputs})
			report := t.Errorf
			if why, ok := modelDataDependent[name]; ok {
				report = t.Logf
				t.Logf("data-dependent: %s", why)
			}
			for _, o := range m2.Graph.Outputs {
				switch o.Type.Kind {
				case ir.KindTensor:
					if !o.Type.Shape.IsStatic() || o.Type.DType == ir.Undefined {
						report("output %q: inferred %s with dims %v, inputs %v", o.Name, o.Type, dims, inputs)
					}
				case ir.KindUnknown:
					report("output %q: type not inferred", o.Name)
				}
			}
		})
	}
}

// TestGapOrigin checks how partial results are traced and classified.
func TestGapOrigin(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2, 3)))
	shape := g.AddInput("shape", ir.TensorType(ir.Int64, ir.ShapeOf(2)))
	r := g.AddNode("Reshape", "", "r", []*ir.Value{x, shape}, []string{"r"}).Outputs[0]
	relu := g.AddNode("Relu", "", "relu", []*ir.Value{r}, []string{"y"}).Outputs[0]
	opaque := g.AddNode("Mystery", "example", "m", []*ir.Value{x}, []string{"z"}).Outputs[0]
	relu2 := g.AddNode("Relu", "", "relu2", []*ir.Value{opaque}, []string{"w"}).Outputs[0]
	g.Outputs = []*ir.Value{relu, relu2}
	ir.InferModel(&ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}, ir.InferOptions{})
	cases := []struct {
		v        *ir.Value
		origin   string
		valueDep bool
	}{
		{relu, "Reshape", true},
		{relu2, "example:Mystery", false},
	}
	for _, tc := range cases {
		n := gapOrigin(tc.v)
		if n == nil || n.QualifiedOp() != tc.origin {
			t.Errorf("%s: origin %v, want %s", tc.v.Name, n, tc.origin)
			continue
		}
		if got := valueDependent(n); got != tc.valueDep {
			t.Errorf("%s: value-dependent %v, want %v", tc.v.Name, got, tc.valueDep)
		}
	}
}
