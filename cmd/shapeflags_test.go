package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// errorLines drops the warning lines of a stderr (and inference
// diagnostics of severity error, which do not stop a command), leaving
// the errors.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "error: ") {
			out = append(out, l)
		}
	}
	return out
}

// modelCommands returns, per command that reads a model, its arguments
// for model (all other files in dir): --dim/--input/--fill flags are
// appended by the caller.
func modelCommands(t *testing.T, model, dir string) map[string][]string {
	t.Helper()
	table := filepath.Join(dir, "ops.csv")
	os.WriteFile(table, []byte("op,dtype,input_shapes,attributes,measured_us,domain,name\nRelu,float32,1x4,,1,,\nFrob,float32,1x4,,1,com.example,\n"), 0o644)
	prof := filepath.Join(dir, "prof.json")
	os.WriteFile(prof, []byte(`[{"cat":"Node","name":"relu0_kernel_time","ph":"X","ts":0,"dur":5,"args":{"op_name":"Relu"}},
{"cat":"Node","name":"frob_kernel_time","ph":"X","ts":5,"dur":5,"args":{"op_name":"Frob"}},
{"cat":"Node","name":"relu1_kernel_time","ph":"X","ts":10,"dur":5,"args":{"op_name":"Relu"}},
{"cat":"Session","name":"model_run","ph":"X","ts":0,"dur":20}]`), 0o644)
	return map[string][]string{
		"inspect":    {"inspect", model},
		"optimize":   {"optimize", model},
		"explain":    {"explain", model},
		"profile":    {"profile", model},
		"cluster":    {"profile", model, "--cluster", "1x2"},
		"sweep":      {"profile", model, "--sweep", "gpus=1,2"},
		"verify":     {"verify", model, model},
		"run":        {"run", model, "-o", filepath.Join(dir, "out")},
		"validate":   {"validate", model, "--table", table},
		"microbench": {"microbench", model},
		"calibrate":  {"calibrate", "--ort-profile", model + "=" + prof, "-o", filepath.Join(dir, "fit.json")},
	}
}

// TestShapeFlagsRefused gives every command that reads a model each bad
// --dim / --input: each is a usage error (exit 2) with one line naming
// the flag and what the model declares.
func TestShapeFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN()) // image: float32[N,3,32,32]
	bad := []struct {
		name  string
		flags []string
		want  string
	}{
		{"wrong rank", []string{"--input", "image=1x3"}, "--input image=1x3: the model declares image as float32[N,3,32,32] (rank 4)"},
		{"empty shape", []string{"--input", "image="}, "--input image=: no shape after '='"},
		{"symbol and rank", []string{"--input", "image=1x3xfoo"}, "(rank 4)"},
		{"bad dim", []string{"--input", "image=1x3x32x3.5"}, `dim 3 is "3.5"`},
		{"unknown input", []string{"--input", "imgae=1x3x32x32"}, "the model has no input imgae (its inputs: image)"},
		{"unknown dim", []string{"--dim", "Q=3"}, "--dim Q=3: the model has no symbolic dim Q (its inputs' symbolic dims: N)"},
		{"contradicts concrete dim", []string{"--input", "image=1x3x33x32"}, "dim 2 is 32, not 33"},
		{"contradicts --dim", []string{"--input", "image=4x3x32x32", "--dim", "N=2"}, "and N is 2 (--dim N=2)"},
		{"symbol for concrete dim", []string{"--input", "image=1x3x32xW"}, "dim 3 is 32, not W"},
		{"dim given twice", []string{"--dim", "N=2", "--dim", "N=3"}, "N is already given"},
		{"negative dim", []string{"--dim", "N=-1"}, "want name=value"},
	}
	cmds := modelCommands(t, model, dir)
	for name, args := range cmds {
		for _, tc := range bad {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				_, stderr, code := run(append(append([]string{}, args...), tc.flags...)...)
				lines := errorLines(stderr)
				if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
					t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, tc.want)
				}
			})
		}
	}
	// The same values that fit the model are taken.
	for _, flags := range [][]string{
		{"--input", "image=2x3x32x32"},
		{"--input", "image=Mx3x32x32", "--dim", "M=2"},
		{"--dim", "N=2"},
		{"--input", "image=1x3x33x32", "--force-input"},
	} {
		if _, stderr, code := run(append([]string{"inspect", model}, flags...)...); code != 0 {
			t.Errorf("inspect %v: exit %d: %s", flags, code, stderr)
		}
	}
}

// TestShapeFlagsShareDims checks that a dim --input gives is the dim of
// every input that declares the same name, and that two inputs giving it
// different values are refused.
func TestShapeFlagsShareDims(t *testing.T) {
	g := ir.NewGraph("g")
	a := g.AddInput("a", ir.TensorType(ir.Float32, ir.DimsShape(ir.S("N"), ir.D(4))))
	b := g.AddInput("b", ir.TensorType(ir.Float32, ir.DimsShape(ir.S("N"), ir.D(4))))
	g.Outputs = g.AddNode("Add", "", "add", []*ir.Value{a, b}, []string{"y"}).Outputs
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	model := writeGen(t, t.TempDir(), "add.onnx", m)
	out, stderr, code := run("inspect", model, "--input", "a=3x4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Inputs  []struct{ Shape []any } `json:"inputs"`
		Outputs []struct{ Shape []any } `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(doc.Inputs[1].Shape, doc.Outputs[0].Shape); got != "[3 4] [3 4]" {
		t.Errorf("b and y after --input a=3x4: %s, want [3 4] [3 4]", got)
	}
	_, stderr, code = run("inspect", model, "--input", "a=3x4", "--input", "b=5x4")
	if code != 2 || !strings.Contains(stderr, "--input b=5x4: the model declares b as float32[N,4], and N is 3 (--input a=3x4)") {
		t.Errorf("conflicting inputs: exit %d, %q", code, stderr)
	}
}

// fillModel writes y = x * Cast(k) with x float32[2] and k an int64
// scalar the model branches on in real models (a sample rate).
func fillModel(t *testing.T, dir string) string {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.DimsShape(ir.D(2))))
	k := g.AddInput("k", ir.TensorType(ir.Int64, ir.DimsShape()))
	c := g.AddNode("Cast", "", "cast", []*ir.Value{k}, []string{"kf"}, &ir.Attr{Name: "to", Type: ir.AttrInt, I: int64(ir.Float32)})
	g.Outputs = g.AddNode("Mul", "", "mul", []*ir.Value{x, c.Outputs[0]}, []string{"y"}).Outputs
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	return writeGen(t, dir, "fill.onnx", m)
}

func readPB(t *testing.T, path string) *eval.Tensor {
	t.Helper()
	it, err := importer.ReadTensorFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := eval.FromIR(it, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFill sets an input with --fill in run and verify, and refuses fills
// the model or the input's type cannot take.
func TestFill(t *testing.T) {
	dir := t.TempDir()
	model := fillModel(t, dir)
	out := filepath.Join(dir, "out")
	if _, stderr, code := run("run", model, "--fill", "k=16000", "-o", out, "--save-inputs"); code != 0 {
		t.Fatalf("run --fill: exit %d: %s", code, stderr)
	}
	x, k, y := readPB(t, filepath.Join(out, "input_0.pb")), readPB(t, filepath.Join(out, "input_1.pb")), readPB(t, filepath.Join(out, "output_0.pb"))
	if len(k.I) != 1 || k.I[0] != 16000 {
		t.Fatalf("k = %v, want 16000", k.I)
	}
	for i := range x.F {
		if y.F[i] != x.F[i]*16000 {
			t.Errorf("y[%d] = %g, want %g", i, y.F[i], x.F[i]*16000)
		}
	}
	if _, stderr, code := run("verify", model, model, "--fill", "k=3", "--fill", "x=0.5"); code != 0 || stderr != "" {
		t.Errorf("verify --fill: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct{ fill, want string }{
		{"k=1.5", `"1.5" is not a whole number that fits int64`},
		{"x=abc", `"abc" is not a number`},
		{"q=1", "--fill q=1: the model has no input q (its inputs: x, k)"},
		{"k=", "want name=value"},
	} {
		for _, c := range [][]string{{"run", model, "-o", out}, {"verify", model, model}} {
			_, stderr, code := run(append(c, "--fill", tc.fill)...)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s --fill %s: exit %d, %q; want exit 2 and %q", c[0], tc.fill, code, stderr, tc.want)
			}
		}
	}
}

// opaqueModel writes relu0 -> com.example:Frob -> relu1 over float32[1,4]:
// an unknown op, which every command warns about.
func opaqueModel(t *testing.T, dir string) string {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.DimsShape(ir.D(1), ir.D(4))))
	r0 := g.AddNode("Relu", "", "relu0", []*ir.Value{x}, []string{"a"})
	f := g.AddNode("Frob", "com.example", "frob", r0.Outputs, []string{"b"})
	f.Outputs[0].Declared = &ir.Type{Kind: ir.KindTensor, DType: ir.Float32, Shape: ir.DimsShape(ir.D(1), ir.D(4))}
	g.Outputs = g.AddNode("Relu", "", "relu1", f.Outputs, []string{"y"}).Outputs
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "com.example", Version: 1}}, Graph: g}
	return writeGen(t, dir, "opaque.onnx", m)
}

// TestWarningsOnStderr runs every command that reads a model on one with
// an unknown op, in table mode: the warning is on stderr (whether or not
// the command can finish: run and verify cannot evaluate the op), and not
// repeated in the table on stdout; in JSON it is also in "warnings".
func TestWarningsOnStderr(t *testing.T) {
	dir := t.TempDir()
	model := opaqueModel(t, dir)
	for name, args := range modelCommands(t, model, dir) {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := run(args...)
			if !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "Frob") {
				t.Errorf("exit %d: no warning about Frob on stderr: %q", code, stderr)
			}
			if strings.Contains(stdout, "Frob") && strings.Contains(stdout, "unknown op") {
				t.Errorf("the table repeats the warning on stdout:\n%s", stdout)
			}
		})
	}
	for _, name := range []string{"inspect", "optimize", "explain", "profile", "cluster", "sweep", "validate", "microbench"} {
		args := append(modelCommands(t, model, dir)[name], "--format", "json")
		stdout, stderr, code := run(args...)
		var doc struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Errorf("%s --format json: exit %d, %v: %s", name, code, err, stderr)
			continue
		}
		if !strings.Contains(strings.Join(doc.Warnings, "\n"), "Frob") || !strings.Contains(stderr, "Frob") {
			t.Errorf("%s --format json: warnings %q, stderr %q", name, doc.Warnings, stderr)
		}
	}
}
