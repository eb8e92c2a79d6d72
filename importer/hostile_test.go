package importer

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// Hand-built protobuf for hostile cases, using the exporter's encoder.

func tensorMsg(name string, dt ir.DType, dims []int64, raw []byte, ext map[string]string) *msg {
	t := &msg{}
	t.packedInts(tensorDims, dims)
	t.int(tensorDataType, int64(dt))
	t.str(tensorName, name)
	if raw != nil {
		t.bytes(tensorRawData, raw)
	}
	if ext != nil {
		for _, k := range []string{"location", "offset", "length"} {
			if v, ok := ext[k]; ok {
				e := &msg{}
				e.str(entryKey, k)
				e.str(entryValue, v)
				t.message(tensorExternalData, e)
			}
		}
		t.int(tensorDataLocation, 1)
	}
	return t
}

func nodeMsg(op string, ins, outs []string, attrs ...*msg) *msg {
	n := &msg{}
	for _, s := range ins {
		n.str(nodeInput, s)
	}
	for _, s := range outs {
		n.str(nodeOutput, s)
	}
	n.str(nodeName, op+"_"+strings.Join(outs, "_"))
	n.str(nodeOpType, op)
	for _, a := range attrs {
		n.message(nodeAttribute, a)
	}
	return n
}

func viMsg(name string, dt ir.DType, dims ...int64) *msg {
	t := &ir.Type{Kind: ir.KindTensor, DType: dt, Shape: ir.ShapeOf(dims...)}
	v := &msg{}
	v.str(viName, name)
	v.message(viType, typeMsg(t))
	return v
}

func graphMsg(name string, nodes []*msg, inits []*msg, ins, outs []*msg) *msg {
	g := &msg{}
	for _, n := range nodes {
		g.message(graphNode, n)
	}
	g.str(graphName, name)
	for _, t := range inits {
		g.message(graphInitializer, t)
	}
	for _, v := range ins {
		g.message(graphInput, v)
	}
	for _, v := range outs {
		g.message(graphOutput, v)
	}
	return g
}

func modelBytes(g *msg, opset int64) []byte {
	m := &msg{}
	m.int(modelIRVersion, 8)
	o := &msg{}
	o.str(opsetDomain, "")
	o.int(opsetVersion, opset)
	m.message(modelOpsetImport, o)
	m.message(modelGraph, g)
	var buf bytes.Buffer
	m.writeTo(&buf)
	return buf.Bytes()
}

func reluModel(extra ...*msg) []byte {
	nodes := []*msg{nodeMsg("Relu", []string{"x"}, []string{"y"})}
	return modelBytes(graphMsg("g", nodes, extra, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("y", ir.Float32, 2)}), 17)
}

func ifAttr(name string, g *msg) *msg {
	a := &msg{}
	a.str(attrName, name)
	a.int(attrType, int64(ir.AttrGraph))
	a.message(attrG, g)
	return a
}

// nestedIf builds depth nested If nodes, each branch holding the next.
func nestedIf(depth int) *msg {
	inner := graphMsg("leaf", []*msg{nodeMsg("Identity", []string{"x"}, []string{"y0"})}, nil, nil, []*msg{viMsg("y0", ir.Float32, 2)})
	for i := 1; i < depth; i++ {
		out := "y" + strings.Repeat("i", i)
		n := nodeMsg("If", []string{"c"}, []string{out}, ifAttr("then_branch", inner)) // one branch: sizes stay linear
		inner = graphMsg("level", []*msg{n}, nil, nil, []*msg{viMsg(out, ir.Float32, 2)})
	}
	return inner
}

func TestHostileModels(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 64), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.bin"), make([]byte, 64), 0o644)
	os.Symlink(filepath.Join(outside, "secret.bin"), filepath.Join(dir, "link.bin"))
	extW := func(ext map[string]string) *msg { return tensorMsg("w", ir.Float32, []int64{2}, nil, ext) }
	cases := []struct {
		name string
		data []byte
		want string // substring of the one-line error; "" = must load
	}{
		{"ok", reluModel(), ""},
		{"ext-ok", reluModel(extW(map[string]string{"location": "w.bin", "offset": "8", "length": "8"})), ""},
		{"ext-absolute", reluModel(extW(map[string]string{"location": filepath.Join(outside, "secret.bin")})), "not a relative path"},
		{"ext-dotdot", reluModel(extW(map[string]string{"location": "../" + filepath.Base(outside) + "/secret.bin"})), "leaves the model's folder"},
		{"ext-symlink", reluModel(extW(map[string]string{"location": "link.bin", "length": "8"})), "symlink"},
		{"ext-past-end", reluModel(extW(map[string]string{"location": "w.bin", "offset": "60", "length": "8"})), "past the end"},
		{"ext-missing", reluModel(extW(map[string]string{"location": "nope.bin"})), "not found"},
		{"dims-bomb", reluModel(tensorMsg("w", ir.Float32, []int64{100000, 100000, 100000}, make([]byte, 16), nil)), "needs"},
		{"dims-overflow", reluModel(tensorMsg("w", ir.Float32, []int64{1 << 40, 1 << 40}, make([]byte, 16), nil)), "overflow"},
		{"dims-negative", reluModel(tensorMsg("w", ir.Float32, []int64{-4}, make([]byte, 16), nil)), "negative"},
		{"short-raw", reluModel(tensorMsg("w", ir.Float32, []int64{8}, make([]byte, 16), nil)), "needs 32 bytes"},
		{"dangling", modelBytes(graphMsg("g", []*msg{nodeMsg("Relu", []string{"nope"}, []string{"y"})}, nil, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("y", ir.Float32, 2)}), 17), "nothing produces"},
		{"duplicate-output", modelBytes(graphMsg("g", []*msg{nodeMsg("Relu", []string{"x"}, []string{"y"}), nodeMsg("Neg", []string{"x"}, []string{"y"})}, nil, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("y", ir.Float32, 2)}), 17), "defined twice"},
		{"missing-output", modelBytes(graphMsg("g", nil, nil, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("y", ir.Float32, 2)}), 17), "not produced"},
		{"non-utf8-name", modelBytes(graphMsg("g", []*msg{nodeMsg("Relu", []string{"x"}, []string{"y\xff\xfe"})}, nil, []*msg{viMsg("x", ir.Float32, 2)}, nil), 17), "UTF-8"},
		{"future-opset-ok", modelBytes(graphMsg("g", []*msg{nodeMsg("Relu", []string{"x"}, []string{"y"})}, nil, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("y", ir.Float32, 2)}), 40), ""},
		{"absurd-opset", modelBytes(graphMsg("g", nil, nil, nil, nil), 1<<40), "out of range"},
		{"deep-nesting", modelBytes(nestedIf(200), 17), "nested deeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".onnx")
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Load(p, Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				m.Close()
				return
			}
			if err == nil {
				m.Close()
				t.Fatalf("want an error containing %q, got success", tc.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.Contains(msg, p) {
				t.Errorf("error %q: want one line naming %s and containing %q", msg, p, tc.want)
			}
		})
	}
}

// TestCycleIsVerifyError: the importer links a cyclic graph (names may be
// used before their producer), and the verifier reports the cycle.
func TestCycleIsVerifyError(t *testing.T) {
	nodes := []*msg{nodeMsg("Add", []string{"x", "b"}, []string{"a"}), nodeMsg("Relu", []string{"a"}, []string{"b"})}
	m, err := Decode(modelBytes(graphMsg("g", nodes, nil, []*msg{viMsg("x", ir.Float32, 2)}, []*msg{viMsg("b", ir.Float32, 2)}), 17), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = ir.Verify(m)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("verify: %v, want a cycle error", err)
	}
	// Inference must not hang or panic either.
	ir.InferModel(m, ir.InferOptions{})
}

// TestMutations truncates and bit-flips every shared model many times:
// each attempt must either load or fail with a one-line error, never panic.
func TestMutations(t *testing.T) {
	files := onnxFiles(t, filepath.Join(sharedDir(t), "models"))
	per := 12
	if testing.Short() {
		per = 4
	}
	r := rand.New(rand.NewPCG(7, 7))
	var loaded, failed int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) > 4<<20 {
			continue
		}
		for i := 0; i < per; i++ {
			mut := append([]byte(nil), data...)
			if i%2 == 0 {
				mut = mut[:r.IntN(len(mut))]
			} else {
				for k := 0; k < 1+r.IntN(8); k++ {
					j := r.IntN(len(mut))
					mut[j] ^= 1 << r.IntN(8)
				}
			}
			m, err := Decode(mut, Options{})
			if err != nil {
				failed++
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: multi-line error %q", f, err)
				}
				continue
			}
			loaded++
			if ir.Verify(m) == nil {
				ir.InferModel(m, ir.InferOptions{})
				var buf bytes.Buffer
				_ = Export(m, &buf)
			}
		}
	}
	t.Logf("mutations: %d loaded, %d refused", loaded, failed)
	if failed == 0 {
		t.Fatal("no mutation was refused: the checks are not running")
	}
}
