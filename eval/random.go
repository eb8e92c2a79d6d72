package eval

// This file implements the deterministic input generator shared by
// `wolong verify`, `wolong run` and bench/ort/run.mjs (which implements
// the same generator in JavaScript): mulberry32, one stream per model,
// inputs filled in graph order, elements in row-major order.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/internal/mulberry"
	"github.com/wolong-dev/wolong/ir"
)

// Rand is the mulberry32 generator (32-bit state).
type Rand = mulberry.Rand

// NewRand seeds a generator.
func NewRand(seed uint32) *Rand { return mulberry.New(seed) }

// RandomTensor fills a tensor of dt and shape: floats uniform in [-1, 1)
// on a 2^-23 grid (exact in float32; rounded for float16 and bfloat16),
// integers in [0, 10), bools with probability 1/2. Strings are refused.
func RandomTensor(r *Rand, dt ir.DType, shape []int, maxBytes int64) (*Tensor, error) {
	n := numel(shape)
	if n < 0 {
		for _, d := range shape {
			if d < 0 {
				return nil, fmt.Errorf("invalid shape %v", shape)
			}
		}
		// numel refuses counts past 2^51 elements
		return nil, fmt.Errorf("random input %s%s has more than 2^51 elements, %w of %d bytes", dt, shapeString(shape), ErrMemoryLimit, maxBytes)
	}
	if classOf(dt) == clsBad || dt == ir.String {
		return nil, fmt.Errorf("cannot generate random %s values", dt)
	}
	if maxBytes > 0 && int64(n)*elemBytes(dt) > maxBytes {
		return nil, fmt.Errorf("random input %s%s needs %d bytes, %w of %d bytes", dt, shapeString(shape), int64(n)*elemBytes(dt), ErrMemoryLimit, maxBytes)
	}
	t := newTensor(dt, shape)
	for i := 0; i < n; i++ {
		v := r.Next()
		switch t.cls() {
		case clsF, clsD:
			t.setF(i, float64(v>>8)/(1<<23)-1)
		case clsI:
			t.I[i] = int64(v % 10)
		case clsB:
			t.B[i] = v&1 == 1
		}
	}
	t.normalize()
	return t, nil
}

// RandomInputs generates a value for every graph input of g that has no
// initializer, in graph order, from one stream seeded with seed. Input
// shapes must be concrete (give symbolic dims values first).
func RandomInputs(g *ir.Graph, seed uint32, maxBytes int64) (map[string]Value, error) {
	r := NewRand(seed)
	out := map[string]Value{}
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		t := in.Type
		if t.Kind == ir.KindUnknown && in.Declared != nil {
			t = *in.Declared
		}
		if t.Kind != ir.KindTensor {
			return nil, fmt.Errorf("input %q is a %s: random values are only made for tensors", in.Name, t)
		}
		if !t.Shape.Known {
			return nil, fmt.Errorf("input %q has an unknown shape", in.Name)
		}
		shape := make([]int, len(t.Shape.Dims))
		for i, d := range t.Shape.Dims {
			if !d.IsConcrete() {
				return nil, &UnsetDimError{Input: in.Name, Dim: d, Shape: t.Shape}
			}
			shape[i] = int(d.Val)
		}
		v, err := RandomTensor(r, t.DType, shape, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in.Name, err)
		}
		out[in.Name] = v
	}
	return out, nil
}

// ReadInputDir reads input_N.pb files for g's inputs without an
// initializer, in graph order (the ONNX test-data layout). A missing file
// ends the list (trailing optional inputs).
func ReadInputDir(g *ir.Graph, dir string, maxBytes int64) (map[string]Value, error) {
	out := map[string]Value{}
	k := 0
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		p := fmt.Sprintf("%s/input_%d.pb", dir, k)
		if !fileExists(p) {
			break
		}
		k++
		v, err := ReadValueFile(p, KindOf(in), maxBytes)
		if err != nil {
			return nil, err
		}
		out[in.Name] = v
	}
	if k == 0 {
		return nil, fmt.Errorf("%s holds no input_0.pb", dir)
	}
	return out, nil
}

// FilledTensor returns a tensor of dt and shape whose every element is
// value, written as text: a number for float and integer types (an
// integer must fit the type), true/false (or 1/0) for bool, any text for
// string. It is how `--fill name=value` sets an input the model branches
// on (a sample rate, a flag) instead of a random one.
func FilledTensor(dt ir.DType, shape []int, value string, maxBytes int64) (*Tensor, error) {
	n := numel(shape)
	if n < 0 {
		return nil, fmt.Errorf("invalid shape %v", shape)
	}
	if maxBytes > 0 && int64(n)*elemBytes(dt) > maxBytes {
		return nil, fmt.Errorf("%s%s needs %d bytes, %w of %d bytes", dt, shapeString(shape), int64(n)*elemBytes(dt), ErrMemoryLimit, maxBytes)
	}
	t := newTensor(dt, shape)
	value = strings.TrimSpace(value)
	switch classOf(dt) {
	case clsF, clsD:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number (the input is %s)", value, dt)
		}
		for i := 0; i < n; i++ {
			t.setF(i, f)
		}
	case clsI:
		var v int64
		var err error
		if dt == ir.Uint64 {
			var u uint64
			u, err = strconv.ParseUint(value, 10, 64)
			v = int64(u)
		} else {
			v, err = strconv.ParseInt(value, 10, 64)
			if err == nil && wrapInt(dt, v) != v {
				err = fmt.Errorf("out of range")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number that fits %s", value, dt)
		}
		for i := range t.I {
			t.I[i] = v
		}
	case clsB:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false (the input is bool)", value)
		}
		for i := range t.B {
			t.B[i] = b
		}
	case clsS:
		for i := range t.S {
			t.S[i] = value
		}
	default:
		return nil, fmt.Errorf("cannot fill a %s input", dt)
	}
	t.normalize()
	return t, nil
}
