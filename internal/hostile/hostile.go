// Package hostile writes malformed and adversarial ONNX files for the
// hardening tests of every command: each case is the raw bytes of a model
// (plus any side files it needs), written straight with pbwire so that
// no well-behaved encoder can tidy the damage away.
package hostile

import (
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/internal/pbwire"
)

// Case is one hostile model.
type Case struct {
	Name string
	// Want is a substring the one-line error must contain; "" means the
	// model is valid enough that commands may succeed (but must not panic).
	Want string
	// Write creates the model (and side files) in dir and returns its path.
	Write func(dir string) (string, error)
}

type msg []byte

func (m msg) str(n pbwire.Number, s string) msg {
	m = pbwire.AppendTag(m, n, pbwire.BytesType)
	return pbwire.AppendString(m, s)
}

func (m msg) int(n pbwire.Number, v int64) msg {
	m = pbwire.AppendTag(m, n, pbwire.VarintType)
	return pbwire.AppendVarint(m, uint64(v))
}

func (m msg) sub(n pbwire.Number, c msg) msg {
	m = pbwire.AppendTag(m, n, pbwire.BytesType)
	return pbwire.AppendBytes(m, c)
}

func (m msg) ints(n pbwire.Number, vs ...int64) msg {
	var b []byte
	for _, v := range vs {
		b = pbwire.AppendVarint(b, uint64(v))
	}
	return m.sub(n, b)
}

// Field numbers of onnx.proto used here.
const (
	mIR, mOpset, mGraph                   = 1, 8, 7
	oDomain, oVersion                     = 1, 2
	gNode, gName, gInit, gIn, gOut        = 1, 2, 5, 11, 12
	nIn, nOut, nName, nOp, nAttr          = 1, 2, 3, 4, 5
	aName, aI, aG, aInts, aType           = 1, 3, 6, 8, 20
	vName, vType                          = 1, 2
	tpTensor, ttElem, ttShape, shDim      = 1, 1, 2, 1
	dimValue                              = 1
	tDims, tType, tName, tRaw, tExt, tLoc = 1, 2, 8, 9, 13, 14
)

// Tensor returns a TensorProto.
func Tensor(name string, dtype int64, dims []int64, raw []byte, ext map[string]string) []byte {
	var t msg
	t = t.ints(tDims, dims...)
	t = t.int(tType, dtype)
	t = t.str(tName, name)
	if raw != nil {
		t = t.sub(tRaw, raw)
	}
	for _, k := range []string{"location", "offset", "length"} {
		if v, ok := ext[k]; ok {
			var e msg
			e = e.str(1, k).str(2, v)
			t = t.sub(tExt, e)
		}
	}
	if ext != nil {
		t = t.int(tLoc, 1)
	}
	return t
}

// ValueInfo returns a float tensor ValueInfoProto of the given dims.
func ValueInfo(name string, dims ...int64) []byte {
	var sh msg
	for _, d := range dims {
		var dm msg
		sh = sh.sub(shDim, dm.int(dimValue, d))
	}
	var tt msg
	tt = tt.int(ttElem, 1).sub(ttShape, sh)
	var tp msg
	tp = tp.sub(tpTensor, tt)
	var v msg
	return v.str(vName, name).sub(vType, tp)
}

// Node returns a NodeProto; attrs are AttributeProto bytes.
func Node(op string, ins, outs []string, attrs ...[]byte) []byte {
	var n msg
	for _, s := range ins {
		n = n.str(nIn, s)
	}
	for _, s := range outs {
		n = n.str(nOut, s)
	}
	n = n.str(nName, op+"_"+strings.Join(outs, "_"))
	n = n.str(nOp, op)
	for _, a := range attrs {
		n = n.sub(nAttr, a)
	}
	return n
}

// GraphAttr returns a GRAPH AttributeProto.
func GraphAttr(name string, g []byte) []byte {
	var a msg
	return a.str(aName, name).int(aType, 5).sub(aG, g)
}

// IntsAttr returns an INTS AttributeProto.
func IntsAttr(name string, vs ...int64) []byte {
	var a msg
	return a.str(aName, name).int(aType, 7).ints(aInts, vs...)
}

// Graph returns a GraphProto.
func Graph(name string, nodes, inits, ins, outs [][]byte) []byte {
	var g msg
	for _, n := range nodes {
		g = g.sub(gNode, n)
	}
	g = g.str(gName, name)
	for _, t := range inits {
		g = g.sub(gInit, t)
	}
	for _, v := range ins {
		g = g.sub(gIn, v)
	}
	for _, v := range outs {
		g = g.sub(gOut, v)
	}
	return g
}

// Model returns a ModelProto importing ai.onnx at opset.
func Model(g []byte, opset int64) []byte {
	var o msg
	o = o.str(oDomain, "").int(oVersion, opset)
	var m msg
	return m.int(mIR, 8).sub(mOpset, o).sub(mGraph, g)
}

// ReluModel is a valid one-node model with optional extra initializers.
func ReluModel(inits ...[]byte) []byte {
	return Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, inits,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
}

func nested(depth int) []byte {
	g := Graph("leaf", [][]byte{Node("Identity", []string{"x"}, []string{"y0"})}, nil, nil, [][]byte{ValueInfo("y0", 2)})
	for i := 1; i < depth; i++ {
		out := "y" + strings.Repeat("i", i%50) + string(rune('a'+i%26))
		if len(g) < 64<<10 {
			g = Graph("level", [][]byte{Node("If", []string{"c"}, []string{out}, GraphAttr("then_branch", g), GraphAttr("else_branch", g))}, nil, nil, [][]byte{ValueInfo(out, 2)})
		} else {
			// Past 64 KiB nest through one branch, so the file grows linearly.
			g = Graph("level", [][]byte{Node("If", []string{"c"}, []string{out}, GraphAttr("then_branch", g))}, nil, nil, [][]byte{ValueInfo(out, 2)})
		}
	}
	return Model(g, 17)
}

func file(name string, data []byte, side func(dir string) error) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		if side != nil {
			if err := side(dir); err != nil {
				return "", err
			}
		}
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, data, 0o644)
	}
}

// Cases returns the hostile models of the hardening issue: external data
// that escapes, runs past the end or is missing (and one well-formed
// reference to it), dims bombs, negative and overflowing dims, raw data
// shorter than its dims, deep nesting, huge attribute lists, cycles,
// duplicate, dangling and missing outputs, non-UTF-8 names, names and op
// types with control characters, unnamed graph inputs and initializers,
// a model output listed twice (valid), and opsets from the future.
func Cases() []Case {
	ext := func(loc string, extra ...string) []byte {
		e := map[string]string{"location": loc}
		for i := 0; i+1 < len(extra); i += 2 {
			e[extra[i]] = extra[i+1]
		}
		return Tensor("w", 1, []int64{2}, nil, e)
	}
	side := func(dir string) error {
		if err := os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 64), 0o644); err != nil {
			return err
		}
		out := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-outside")
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, "secret.bin"), make([]byte, 64), 0o644)
		os.Remove(filepath.Join(dir, "link.bin"))
		return os.Symlink(filepath.Join(out, "secret.bin"), filepath.Join(dir, "link.bin"))
	}
	huge := make([]int64, 1<<20)
	for i := range huge {
		huge[i] = int64(i)
	}
	badUTF := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y\xff"})}, nil, [][]byte{ValueInfo("x", 2)}, nil), 17)
	cycle := Model(Graph("g", [][]byte{Node("Add", []string{"x", "b"}, []string{"a"}), Node("Relu", []string{"a"}, []string{"b"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("b", 2)}), 17)
	dup := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"}), Node("Neg", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	dangling := Model(Graph("g", [][]byte{Node("Relu", []string{"ghost"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	bigInput := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 1<<31, 1<<31)}, [][]byte{ValueInfo("y", 1<<31, 1<<31)}), 17)
	overflowInput := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", math.MaxInt64/2, 4, 4)}, [][]byte{ValueInfo("y", 2)}), 17)
	missingOutput := Model(Graph("g", nil, nil, [][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	// Names with control characters (ESC, DEL, NUL) that error messages quote.
	controlName := Model(Graph("g", [][]byte{Node("Relu\x1b[2J\x7f", []string{"ghost"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	controlOp := Model(Graph("g", [][]byte{Node("a\x00b\x01", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	// A graph input and an initializer without a name (an export then
	// invents one, and verify cannot match the models' inputs).
	unnamedInput := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2), ValueInfo("", 2)}, [][]byte{ValueInfo("y", 2)}), 17)
	// The same value listed twice as a model output: valid (a shared model,
	// nnfusion_gru_bidirectional, does it); a sweep variant listed it
	// 883,011 times, and run wrote as many files.
	twiceOutput := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2), ValueInfo("y", 2)}), 17)
	negInput := Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil,
		[][]byte{ValueInfo("x", -7)}, [][]byte{ValueInfo("y", 2)}), 17)
	return []Case{
		{"valid", "", file("valid.onnx", ReluModel(), nil)},
		{"ext-absolute", "not a relative path", file("ext-absolute.onnx", ReluModel(ext("/etc/passwd")), side)},
		{"ext-dotdot", "leaves the model's folder", file("ext-dotdot.onnx", ReluModel(ext("../x/secret.bin")), side)},
		{"ext-symlink", "symlink", file("ext-symlink.onnx", ReluModel(ext("link.bin", "length", "8")), side)},
		{"ext-past-end", "past the end", file("ext-past-end.onnx", ReluModel(ext("w.bin", "offset", "60", "length", "8")), side)},
		{"ext-ok", "", file("ext-ok.onnx", ReluModel(ext("w.bin", "offset", "8", "length", "8")), side)},
		{"ext-missing", "not found", file("ext-missing.onnx", ReluModel(ext("nope.bin")), side)},
		{"dims-bomb", "needs", file("dims-bomb.onnx", ReluModel(Tensor("w", 1, []int64{100000, 100000, 100000}, make([]byte, 16), nil)), nil)},
		{"dims-overflow", "overflow", file("dims-overflow.onnx", ReluModel(Tensor("w", 1, []int64{1 << 40, 1 << 40}, make([]byte, 16), nil)), nil)},
		{"dims-negative", "negative", file("dims-negative.onnx", ReluModel(Tensor("w", 1, []int64{-4}, make([]byte, 16), nil)), nil)},
		{"short-raw", "needs 32 bytes", file("short-raw.onnx", ReluModel(Tensor("w", 1, []int64{8}, make([]byte, 16), nil)), nil)},
		{"input-negative-dim", "negative", file("input-negative-dim.onnx", negInput, nil)},
		{"input-overflow", "", file("input-overflow.onnx", overflowInput, nil)},
		{"input-exceeds-memory", "", file("input-exceeds-memory.onnx", bigInput, nil)},
		{"deep-nesting", "nested deeper", file("deep-nesting.onnx", nested(100), nil)},
		{"huge-attribute", "", file("huge-attribute.onnx", Model(Graph("g", [][]byte{Node("Transpose", []string{"x"}, []string{"y"}, IntsAttr("perm", huge...))}, nil, [][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 17), nil)},
		{"cycle", "cycle", file("cycle.onnx", cycle, nil)},
		{"duplicate-output", "defined twice", file("duplicate-output.onnx", dup, nil)},
		{"dangling", "nothing produces", file("dangling.onnx", dangling, nil)},
		{"missing-output", "not produced", file("missing-output.onnx", missingOutput, nil)},
		{"non-utf8", "UTF-8", file("non-utf8.onnx", badUTF, nil)},
		{"control-name", "nothing produces", file("control-name.onnx", controlName, nil)},
		{"control-op", "", file("control-op.onnx", controlOp, nil)},
		{"unnamed-input", "has no name", file("unnamed-input.onnx", unnamedInput, nil)},
		{"output-twice", "", file("output-twice.onnx", twiceOutput, nil)},
		{"unnamed-initializer", "has no name", file("unnamed-initializer.onnx", ReluModel(Tensor("", 1, []int64{2}, make([]byte, 8), nil)), nil)},
		{"future-opset", "", file("future-opset.onnx", Model(Graph("g", [][]byte{Node("Relu", []string{"x"}, []string{"y"})}, nil, [][]byte{ValueInfo("x", 2)}, [][]byte{ValueInfo("y", 2)}), 99), nil)},
		{"absurd-opset", "out of range", file("absurd-opset.onnx", Model(Graph("g", nil, nil, nil, nil), 1<<40), nil)},
		{"empty", "empty", file("empty.onnx", nil, nil)},
		{"garbage", "", file("garbage.onnx", []byte("\x0a\xff\xff\xff\xff\x0f garbage"), nil)},
	}
}
