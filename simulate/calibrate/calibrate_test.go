package calibrate

import (
	"bytes"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

const ortSample = `[
{"cat":"Session","name":"model_run","ph":"X","ts":0,"dur":120},
{"cat":"Session","name":"model_run","ph":"X","ts":200,"dur":100},
{"cat":"Session","name":"model_run","ph":"X","ts":400,"dur":110},
{"cat":"Node","name":"mm_kernel_time","ph":"X","ts":1,"dur":50,"args":{"op_name":"MatMul","input_type_shape":[{"float":[64,256]},{"float":[256,128]}]}},
{"cat":"Node","name":"mm_kernel_time","ph":"X","ts":201,"dur":40,"args":{"op_name":"MatMul","input_type_shape":[{"float":[64,256]},{"float":[256,128]}]}},
{"cat":"Node","name":"mm_kernel_time","ph":"X","ts":401,"dur":44,"args":{"op_name":"MatMul","input_type_shape":[{"float":[64,256]},{"float":[256,128]}]}},
{"cat":"Node","name":"mm_fence_before","ph":"X","ts":1,"dur":0,"args":{"op_name":"MatMul"}},
{"cat":"Node","name":"act_kernel_time","ph":"X","ts":60,"dur":9,"args":{"op_name":"Relu","input_type_shape":[{"float":[64,128]}]}}
]`

func TestParseORT(t *testing.T) {
	p, err := ParseORT("x.json", []byte(ortSample))
	if err != nil {
		t.Fatal(err)
	}
	if p.RunUs != 110 {
		t.Errorf("RunUs = %v, want the median 110", p.RunUs)
	}
	if len(p.Samples) != 2 || p.Samples[0].Name != "mm" || p.Samples[0].Us != 44 || p.Samples[0].Runs != 3 {
		t.Fatalf("samples = %+v, want mm (median 44 over 3) then act", p.Samples)
	}
	if got := FormatInputs(p.Samples[0].Inputs, p.Samples[0].DType); got != "64x256;256x128" {
		t.Errorf("inputs = %q", got)
	}
	for _, bad := range []string{``, `{}`, `[{"cat":"Node","name":"a_kernel_time","dur":1}]`, `[{"cat":"Node","name":"a_kernel_time","dur":-1,"args":{"op_name":"Relu"}}]`,
		`[{"cat":"Node","name":"a_kernel_time","dur":1,"args":{"op_name":"Relu","input_type_shape":[{"float":[-3]}]}}]`, `not json`} {
		if _, err := ParseORT("bad.json", []byte(bad)); err == nil {
			t.Errorf("ParseORT(%q) accepted", bad)
		}
	}
}

func TestParseTable(t *testing.T) {
	src := "# comment\nop,dtype,input_shapes,attributes,measured_us\n" +
		"MatMul,float32,64x256;256x512,,41.5\n" +
		"Conv,float32,1x3x224x224;64x3x7x7;64,\"kernel_shape=7,7;pads=3,3,3,3;strides=2,2\",1803\n" +
		"Reshape,float32,\"2x3x4;3:int64=2,-1,4\",,1.5\n" +
		"LeakyRelu,float16,8x8,alpha=0.1,2\n"
	p, err := ParseTable("t.csv", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 4 {
		t.Fatalf("%d samples", len(p.Samples))
	}
	conv := p.Samples[1]
	if conv.Us != 1803 || len(conv.Inputs) != 3 || len(conv.Attrs) != 3 || conv.Attrs[0].Type != ir.AttrInts {
		t.Errorf("conv row = %+v", conv)
	}
	if r := p.Samples[2].Inputs[1]; r.DType != ir.Int64 || !r.HasValues || len(r.Values) != 3 || r.Values[1] != -1 {
		t.Errorf("reshape shape input = %+v", r)
	}
	if a := p.Samples[3].Attrs[0]; a.Type != ir.AttrFloat || math.Abs(float64(a.F)-0.1) > 1e-6 {
		t.Errorf("alpha = %+v", a)
	}
	// round trip through WriteTable
	var buf bytes.Buffer
	if err := WriteTable(&buf, p.Samples); err != nil {
		t.Fatal(err)
	}
	q, err := ParseTable("rt.csv", buf.Bytes())
	if err != nil {
		t.Fatalf("re-read: %v\n%s", err, buf.String())
	}
	for i := range p.Samples {
		if Key(&p.Samples[i]) != Key(&q.Samples[i]) || p.Samples[i].Us != q.Samples[i].Us {
			t.Errorf("row %d: %q != %q", i, Key(&p.Samples[i]), Key(&q.Samples[i]))
		}
	}
	for _, bad := range []string{"", "op,dtype\nRelu,float32", "op,dtype,input_shapes,attributes,measured_us\nRelu,floaty,2,,1",
		"op,dtype,input_shapes,attributes,measured_us\nRelu,float32,2xq,,1", "op,dtype,input_shapes,attributes,measured_us\nRelu,float32,2,,-1",
		"op,dtype,input_shapes,attributes,measured_us\nRelu,float32,2=1,,1",
		"op,dtype,input_shapes,attributes,measured_us\nRelu,float32,4294967296x4294967296=,,1", "op,dtype,input_shapes,attributes,measured_us\nRelu,float32,2,axis,1"} {
		if _, err := ParseTable("bad.csv", []byte(bad)); err == nil {
			t.Errorf("ParseTable(%q) accepted", bad)
		}
	}
}

const torchSampleTrace = `{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::linear","tid":1,"ts":0,"dur":30,"args":{"Input Dims":[[32,512],[256,512],[256]],"Input type":["float","float","float"],"External id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::addmm","tid":1,"ts":2,"dur":20,"args":{"Input Dims":[[256],[32,512],[512,256]],"Input type":["float","float","float"],"External id":2}},
{"ph":"X","cat":"kernel","name":"sgemm","tid":7,"ts":5,"dur":12.5,"args":{"External id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","tid":1,"ts":30,"dur":9,"args":{"Input Dims":[[1,16,32,32],[32,8,3,3],[32],[],[],[],[]],"Input type":["float","float","float","ScalarList","ScalarList","ScalarList","Scalar"],"Concrete Inputs":["","","","[2, 2]","[1, 1]","[1, 1]","2"],"External id":4}},
{"ph":"X","cat":"kernel","name":"conv_kernel","tid":7,"ts":32,"dur":3,"args":{"External id":4}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","tid":1,"ts":40,"dur":8,"args":{"Input Dims":[[32,256]],"Input type":["float"],"External id":3}},
{"ph":"X","cat":"kernel","name":"relu_kernel","tid":7,"ts":45,"dur":2,"args":{"External id":3}}
]}`

func TestParseTorch(t *testing.T) {
	p, err := ParseTorch("tr.json", []byte(torchSampleTrace))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 3 {
		t.Fatalf("samples = %+v, want linear (with its nested addmm's kernel), conv2d and relu", p.Samples)
	}
	conv := p.Samples[1]
	if attrs, _ := FormatAttrs(conv.Attrs); conv.Op != "Conv" || conv.Us != 3 || attrs != "dilations=1,1;group=2;kernel_shape=3,3;pads=1,1,1,1;strides=2,2" {
		t.Errorf("conv2d = %+v, attributes %q", conv, attrs)
	}
	p.Samples = append(p.Samples[:1], p.Samples[2:]...)
	if s := p.Samples[0]; s.Op != "MatMul" || s.Us != 12.5 || FormatInputs(s.Inputs, s.DType) != "32x512;512x256" {
		t.Errorf("linear = %+v %q", s, FormatInputs(s.Inputs, s.DType))
	}
	if s := p.Samples[1]; s.Op != "Relu" || s.Us != 2 {
		t.Errorf("relu = %+v", s)
	}
	if _, err := ParseTorch("x", []byte(ortSample)); err == nil {
		t.Error("ParseTorch accepted an ORT profile")
	}
}

// twoNodeModel is MatMul(x, w) -> Relu, named mm and act.
func twoNodeModel() *ir.Model {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(64, 256)))
	w := g.AddInput("w", ir.TensorType(ir.Float32, ir.ShapeOf(256, 128)))
	mm := g.AddNode("MatMul", "", "mm", []*ir.Value{x, w}, []string{"y"})
	act := g.AddNode("Relu", "", "act", []*ir.Value{mm.Outputs[0]}, []string{"z"})
	g.Outputs = append(g.Outputs, act.Outputs[0])
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

func TestMatch(t *testing.T) {
	m := twoNodeModel()
	p, _ := ParseORT("ok.json", []byte(ortSample))
	pairs, err := Match(m, p)
	if err != nil || len(pairs) != 2 || pairs[0].Node.Name != "mm" {
		t.Fatalf("pairs = %v, err %v", pairs, err)
	}
	cases := []struct{ name, profile, want string }{
		{"wrong name", strings.ReplaceAll(ortSample, "act_kernel", "relu9_kernel"), "not in the model: relu9"},
		{"missing op", strings.Split(ortSample, ",\n{\"cat\":\"Node\",\"name\":\"act")[0] + "]", "missing from the profile: act (Relu)"},
		{"other op", strings.ReplaceAll(ortSample, `"op_name":"Relu"`, `"op_name":"Sigmoid"`), "act is Relu in the model, Sigmoid in the profile"},
	}
	for _, c := range cases {
		q, err := ParseORT(c.name, []byte(c.profile))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = Match(m, q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// synthetic observations: random GEMMs and elementwise ops timed by truth.
func synthObs(truth *hw.Hardware, noise float64, seed int64) []Obs {
	rng := rand.New(rand.NewSource(seed))
	cm := cost.New(truth, nil, cost.Options{})
	var obs []Obs
	for i := 0; i < 60; i++ {
		var s Sample
		if i%2 == 0 {
			mdim, k, n := int64(16<<rng.Intn(5)), int64(16<<rng.Intn(5)), int64(16<<rng.Intn(5))
			s = Sample{Op: "MatMul", DType: ir.Float32, Inputs: []Input{{DType: ir.Float32, Dims: []int64{mdim, k}}, {DType: ir.Float32, Dims: []int64{k, n}}}}
		} else {
			s = Sample{Op: "Add", DType: ir.Float32, Inputs: []Input{{DType: ir.Float32, Dims: []int64{int64(1 << (8 + rng.Intn(14)))}}, {DType: ir.Float32, Dims: []int64{1}}}}
		}
		o, skipped := SampleObs(truth, []Sample{s})
		if len(o) != 1 {
			panic(skipped)
		}
		us := cm.Time(o[0].Cost).DeviceS * 1e6
		o[0].Us = us * (1 + noise*(2*rng.Float64()-1))
		obs = append(obs, o[0])
	}
	return obs
}

func TestFitRecoversAndIsStable(t *testing.T) {
	base, _ := hw.Preset("cpu")
	truth := base.Clone()
	truth.Efficiency.MatMul = hw.ClassEfficiency{Compute: 0.35, Memory: 0.5, OverheadUs: 4}
	truth.Efficiency.Elementwise = hw.ClassEfficiency{Compute: 0.3, Memory: 0.6, OverheadUs: 1.5}
	predict := func(h *hw.Hardware, obs []Obs) []float64 {
		cm := cost.New(h, nil, cost.Options{})
		out := make([]float64, len(obs))
		for i, o := range obs {
			out[i] = cm.Time(o.Cost).DeviceS * 1e6
		}
		return out
	}
	clean := synthObs(truth, 0, 1)
	want := predict(truth, clean)
	r1, err := Fit(base, clean, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := predict(r1.HW, clean)
	for i := range got {
		if math.Abs(got[i]-want[i])/want[i] > 0.10 {
			t.Errorf("%s: fitted %.2f us, truth %.2f us", clean[i].Label, got[i], want[i])
		}
	}
	// deterministic: the same input gives the same file
	var b1, b2 bytes.Buffer
	r2, _ := Fit(base, clean, nil, Options{})
	_ = r1.HW.WriteJSON(&b1)
	_ = r2.HW.WriteJSON(&b2)
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Error("two fits of the same observations wrote different files")
	}
	// 5% noise moves the predictions by no more than 5%
	noisy := synthObs(truth, 0.05, 1)
	rn, err := Fit(base, noisy, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pn := predict(rn.HW, clean)
	for i := range pn {
		if d := math.Abs(pn[i]-got[i]) / got[i]; d > 0.05 {
			t.Errorf("%s: 5%% noise moved the prediction by %.1f%%", clean[i].Label, 100*d)
		}
	}
	for _, c := range rn.Classes {
		if c.After.Compute <= 0 || c.After.Compute > 1 || c.After.Memory <= 0 || c.After.Memory > 1 || c.After.OverheadUs < 0 {
			t.Errorf("class %s out of range: %+v", c.Class, c.After)
		}
	}
}

func TestDistinctOps(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(8, 8)))
	a := g.AddNode("Relu", "", "a", []*ir.Value{x}, []string{"a"})
	b := g.AddNode("Relu", "", "b", []*ir.Value{a.Outputs[0]}, []string{"b"})
	c := g.AddNode("Softmax", "", "c", []*ir.Value{b.Outputs[0]}, []string{"c"}, &ir.Attr{Name: "axis", Type: ir.AttrInt, I: 1})
	g.Outputs = append(g.Outputs, c.Outputs[0])
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	ops, skipped := DistinctOps(g)
	if len(skipped) != 0 || len(ops) != 2 || ops[0].Op != "Relu" || ops[0].Count != 2 || ops[1].Attributes != "axis=1" || ops[1].Inputs != "8x8" {
		t.Fatalf("ops = %+v skipped %v", ops, skipped)
	}
}

// TestMeasuredProfiles matches the committed ORT profiles (measured here,
// bench/ort/profile.mjs) with their shared models and checks that a fit on
// them lowers the kernels' summed-time error.
func TestMeasuredProfiles(t *testing.T) {
	models := filepath.Join("..", "..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "measured", "cpu", "*.profile.json"))
	if len(files) == 0 {
		t.Fatal("no measured profiles")
	}
	base, _ := hw.Preset("cpu-1t")
	var obs []Obs
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseORT(f, data)
		if err != nil {
			t.Fatal(err)
		}
		m, err := importer.Load(filepath.Join(models, p.Model), importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opt := ir.InferOptions{Inputs: map[string]ir.Shape{}}
		for _, in := range p.Inputs {
			opt.Inputs[in.Name] = ir.ShapeOf(in.Shape...)
		}
		ir.InferModel(m, opt)
		pairs, err := Match(m, p)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		obs = append(obs, Observations(base, m, pairs, cost.Options{NoFold: p.RunsEveryNode()}, p.RunUs)...)
		m.Close()
	}
	r, err := Fit(base, obs, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := func(h *hw.Hardware) (p, m float64) {
		cm := cost.New(h, nil, cost.Options{})
		for _, o := range obs {
			p += cm.Time(o.Cost).DeviceS * 1e6
			m += o.Us
		}
		return p, m
	}
	pb, m := total(base)
	pa, _ := total(r.HW)
	eb, ea := 100*(pb-m)/m, 100*(pa-m)/m
	mb, ma := kernelMAPE(base, obs), kernelMAPE(r.HW, obs)
	t.Logf("%d kernels: summed time error %+.1f%% with the preset, %+.1f%% fitted; mean |error| per kernel %.1f%% -> %.1f%%", len(obs), eb, ea, mb, ma)
	if math.Abs(ea) > 15 || ma >= mb {
		t.Errorf("fit: summed kernel time %+.1f%% -> %+.1f%% (want within 15%%), per-kernel error %.1f%% -> %.1f%% (want lower)", eb, ea, mb, ma)
	}
}

func kernelMAPE(h *hw.Hardware, obs []Obs) float64 {
	cm := cost.New(h, nil, cost.Options{})
	var s float64
	for _, o := range obs {
		m := math.Max(o.Us, 0.5)
		s += math.Abs(cm.Time(o.Cost).DeviceS*1e6-m) / m
	}
	return 100 * s / float64(len(obs))
}
