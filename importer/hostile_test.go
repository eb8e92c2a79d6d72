package importer

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/hostile"
	"github.com/wolong-dev/wolong/ir"
)

// Hand-built protobuf for the fuzz seeds and the benchmarks, using the
// exporter's encoder; the hostile models themselves come from
// internal/hostile.

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

// TestHostileModels loads every model of the shared hostile catalogue
// (internal/hostile, which cmd's tests run through every command). A
// refusal must be one line naming the file and, where the case wants an
// error, say what it wants. A model the importer links but that is still
// wrong (a cycle) must fail ir.Verify with that message instead, and shape
// inference on it must neither hang nor panic. The well-formed cases must
// load.
func TestHostileModels(t *testing.T) {
	mustLoad := map[string]bool{"valid": true, "ext-ok": true, "future-opset": true}
	dir := t.TempDir()
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			p, err := c.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(p, Options{})
			if err != nil {
				msg := err.Error()
				if mustLoad[c.Name] {
					t.Fatalf("want success, got %v", err)
				}
				if !strings.Contains(msg, c.Want) || strings.Contains(msg, "\n") || !strings.Contains(msg, p) {
					t.Errorf("error %q: want one line naming %s and containing %q", msg, p, c.Want)
				}
				return
			}
			defer m.Close()
			if c.Want == "" {
				return
			}
			verr := ir.Verify(m)
			if verr == nil || !strings.Contains(verr.Error(), c.Want) {
				t.Fatalf("loaded, and verify says %v: want an error containing %q", verr, c.Want)
			}
			ir.InferModel(m, ir.InferOptions{})
		})
	}
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
