// Package modelgen builds small and synthetic ONNX models for tests,
// benchmarks and the bundled samples: a builder over the IR plus
// generators for the architectures the project's checks name (a sample
// CNN, chains of tiny ops, very large graphs, large weights).
//
// Weights are deterministic: each comes from a PCG stream seeded by the
// builder's seed and the weight's name, so a generator always writes the
// same bytes.
package modelgen

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"

	"github.com/wolong-dev/wolong/ir"
)

// Builder assembles a model one op at a time.
type Builder struct {
	M     *ir.Model
	G     *ir.Graph
	Seed  uint64
	count map[string]int
}

// New returns a builder for a model with one ai.onnx opset import.
func New(name string, opset int64) *Builder {
	g := ir.NewGraph(name)
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: opset}}, ProducerName: "wolong-modelgen", Graph: g}
	if opset >= 21 {
		m.IRVersion = 10
	}
	return &Builder{M: m, G: g, Seed: 1, count: map[string]int{}}
}

// Input adds a float32 graph input; dims may be int (concrete) or string
// (symbolic).
func (b *Builder) Input(name string, dt ir.DType, dims ...any) *ir.Value {
	t := ir.TensorType(dt, shapeOf(dims...))
	v := b.G.AddInput(name, t)
	d := t.Clone()
	v.Declared = &d
	return v
}

func shapeOf(dims ...any) ir.Shape {
	s := ir.Shape{Known: true}
	for _, d := range dims {
		switch x := d.(type) {
		case int:
			s.Dims = append(s.Dims, ir.D(int64(x)))
		case int64:
			s.Dims = append(s.Dims, ir.D(x))
		case string:
			s.Dims = append(s.Dims, ir.S(x))
		default:
			panic(fmt.Sprintf("modelgen: bad dim %v", d))
		}
	}
	return s
}

// Output marks values as graph outputs.
func (b *Builder) Output(vs ...*ir.Value) {
	b.G.Outputs = append(b.G.Outputs, vs...)
}

func (b *Builder) rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(b.Seed, h.Sum64()))
}

// Weight adds a float32 initializer with values uniform in [-scale, scale]
// where scale = 1/sqrt(fan-in) (fan-in: product of all dims but the first).
func (b *Builder) Weight(name string, dims ...int64) *ir.Value {
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Float32, Dims: dims, Raw: b.weightBytes(name, dims, math.MaxInt64)})
}

// TiledWeight adds a float32 initializer like Weight whose values repeat
// every tileElems elements (the first tileElems of Weight's stream for
// name and dims, over and over): for weights of 100 MB and more whose
// values no measurement depends on (a GEMM's time). The bytes are made on
// demand (ir.Source), as the exporter streams them: building the suite
// holds 256 KiB for such a weight, not the weight (the suite is built by
// several tests, some under the race detector).
func (b *Builder) TiledWeight(name string, dims ...int64) *ir.Value {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	src := tiledSource{tile: b.weightBytes(name, dims, tileElems), size: 4 * n}
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Float32, Dims: dims, Src: src})
}

// tileElems is the period of TiledWeight's values (256 KiB of float32).
const tileElems = 1 << 16

// tiledSource is size bytes of tile repeated (ir.Source).
type tiledSource struct {
	tile []byte
	size int64
}

func (t tiledSource) Size() int64 { return t.size }

func (t tiledSource) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("tiled weight: negative offset %d", off)
	}
	if off >= t.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), t.size-off))
	for i := 0; i < n; {
		i += copy(p[i:n], t.tile[(off+int64(i))%int64(len(t.tile)):])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// weightBytes packs the first min(elements, limit) values of Weight's
// stream for name and dims.
func (b *Builder) weightBytes(name string, dims []int64, limit int64) []byte {
	return b.weightBytesOf(name, dims, limit, ir.Float32)
}

// weightBytesOf is weightBytes encoded as dt (float32, float16 or
// bfloat16, rounded to nearest).
func (b *Builder) weightBytesOf(name string, dims []int64, limit int64, dt ir.DType) []byte {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	n = min(n, limit)
	fan := int64(1)
	for _, d := range dims[min(1, len(dims)):] {
		fan *= d
	}
	scale := 1 / math.Sqrt(float64(max(fan, 1)))
	r := b.rng(name)
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32((r.Float64()*2 - 1) * scale)
	}
	return encodeFloats(dt, vals)
}

// encodeFloats packs vals as little-endian dt (float32, float16 or
// bfloat16, rounded to nearest).
func encodeFloats(dt ir.DType, vals []float32) []byte {
	size := dt.Bits() / 8
	raw := make([]byte, size*len(vals))
	for i, f := range vals {
		switch dt {
		case ir.Float16:
			binary.LittleEndian.PutUint16(raw[2*i:], ir.Float32ToHalf(f))
		case ir.BFloat16:
			binary.LittleEndian.PutUint16(raw[2*i:], ir.Float32ToBFloat16(f))
		default:
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
		}
	}
	return raw
}

// ConstF adds a float32 initializer with the given values.
func (b *Builder) ConstF(name string, dims []int64, vals ...float32) *ir.Value {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Float32, Dims: dims, Raw: raw})
}

// ConstI adds an int64 initializer (shapes, axes, split sizes).
func (b *Builder) ConstI(name string, dims []int64, vals ...int64) *ir.Value {
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Int64, Dims: dims, Raw: raw})
}

// Op adds a node with one output and returns it. Node and output names are
// generated from the op ("Conv_3", "Conv_3_out").
func (b *Builder) Op(op string, inputs []*ir.Value, attrs ...*ir.Attr) *ir.Value {
	return b.OpN(op, 1, inputs, attrs...)[0]
}

// OpN adds a node with n outputs.
func (b *Builder) OpN(op string, n int, inputs []*ir.Value, attrs ...*ir.Attr) []*ir.Value {
	return b.addNode("", op, n, true, inputs, attrs)
}

// addNode adds a node of op in domain named op_k (the k-th of its op)
// with n outputs op_k_out0, op_k_out1, ... (op_k_out for a sole output
// when soleOut).
func (b *Builder) addNode(domain, op string, n int, soleOut bool, inputs []*ir.Value, attrs []*ir.Attr) []*ir.Value {
	k := b.count[op]
	b.count[op]++
	name := fmt.Sprintf("%s_%d", op, k)
	outs := make([]string, n)
	for i := range outs {
		outs[i] = fmt.Sprintf("%s_out%d", name, i)
		if n == 1 && soleOut {
			outs[i] = name + "_out"
		}
	}
	return b.G.AddNode(op, domain, name, inputs, outs, attrs...).Outputs
}

// Ints, Int, Float and Str build attributes.
func Ints(name string, v ...int64) *ir.Attr {
	return &ir.Attr{Name: name, Type: ir.AttrInts, Ints: v}
}

// Int builds an INT attribute.
func Int(name string, v int64) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrInt, I: v} }

// Float builds a FLOAT attribute.
func Float(name string, v float32) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrFloat, F: v} }

// Str builds a STRING attribute.
func Str(name, v string) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrString, S: []byte(v)} }

// Model returns the built model.
func (b *Builder) Model() *ir.Model { return b.M }

// outputY names v "y", makes it the graph's one output and returns the
// model, as every calibration-suite generator ends.
func (b *Builder) outputY(v *ir.Value) *ir.Model {
	v.Name = "y"
	b.Output(v)
	return b.Model()
}
