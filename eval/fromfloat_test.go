package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestFromFloat64sEveryDType: a kernel that computes in float64 and
// returns its input's dtype gives a consistent tensor whatever that dtype
// is (the sweep gave MatMulNBits a uint64 A; the result had float32 data
// under an integer dtype, which the driver reports as an internal error).
func TestFromFloat64sEveryDType(t *testing.T) {
	vals := []float64{1.5, -2.7, 0, math.NaN()}
	for _, dt := range []ir.DType{ir.Float32, ir.Float64, ir.Float16, ir.BFloat16, ir.Int8, ir.Int32, ir.Int64, ir.Uint8, ir.Uint64, ir.Bool} {
		tn := fromFloat64s(dt, []int{4}, append([]float64(nil), vals...))
		if tn.Len() != 4 || tn.DType != dt {
			t.Errorf("%s: %d elements of %s, want 4 of %s", dt, tn.Len(), tn.DType, dt)
			continue
		}
		switch tn.cls() {
		case clsI:
			if tn.I[0] != 1 || tn.I[1] != -2 || tn.I[3] != 0 {
				t.Errorf("%s: %v, want [1 -2 0 0] (truncated, NaN as 0)", dt, tn.I)
			}
		case clsB:
			if !tn.B[0] || tn.B[2] {
				t.Errorf("%s: %v, want [true true false true]", dt, tn.B)
			}
		}
	}
}

// TestMatMulNBitsWantsFloatA: an integer A is refused with a clear error.
func TestMatMulNBitsWantsFloatA(t *testing.T) {
	g := ir.NewGraph("mmnb")
	a := g.AddInput("a", ir.TensorType(ir.Uint64, ir.ShapeOf(1, 4)))
	b := g.AddInitializer((&ir.Tensor{Name: "b", DType: ir.Uint8, Dims: []int64{2, 1, 2}}).SetInt32s([]int32{1, 2, 3, 4}))
	s := g.AddInitializer((&ir.Tensor{Name: "s", DType: ir.Float32, Dims: []int64{2}}).SetFloats([]float32{1, 1}))
	g.Outputs = []*ir.Value{g.AddNode("MatMulNBits", "com.microsoft", "mm", []*ir.Value{a, b, s}, []string{"y"},
		&ir.Attr{Name: "K", Type: ir.AttrInt, I: 4}, &ir.Attr{Name: "N", Type: ir.AttrInt, I: 2},
		&ir.Attr{Name: "bits", Type: ir.AttrInt, I: 4}, &ir.Attr{Name: "block_size", Type: ir.AttrInt, I: 4}).Outputs[0]}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	_, err := Run(m, map[string]Value{"a": &Tensor{DType: ir.Uint64, Shape: []int{1, 4}, I: []int64{1, 2, 3, 4}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "float") || strings.Contains(err.Error(), "internal error") {
		t.Fatalf("err = %v, want A refused as not float", err)
	}
}

// TestMatMulNBitsZeroPoints: zero points of the wrong length (packed or
// one per block) are refused with a clear error, not read past their end
// (the sweep turned a packed uint8 zero-point tensor into float8 values).
func TestMatMulNBitsZeroPoints(t *testing.T) {
	for _, zp := range []*ir.Tensor{
		(&ir.Tensor{Name: "zp", DType: ir.Uint8, Dims: []int64{1}}).SetInt32s([]int32{8}),         // packed: want 2 bytes (one per row)
		(&ir.Tensor{Name: "zp", DType: ir.Float32, Dims: []int64{1}}).SetFloats([]float32{8}),     // per block: want 2 values
		(&ir.Tensor{Name: "zp", DType: ir.Float8E5M2, Dims: []int64{1}}).SetInt32s([]int32{0x48}), // a float8 tensor the size of the packed one
	} {
		g := ir.NewGraph("mmnb")
		a := g.AddInput("a", ir.TensorType(ir.Float32, ir.ShapeOf(1, 4)))
		b := g.AddInitializer((&ir.Tensor{Name: "b", DType: ir.Uint8, Dims: []int64{2, 1, 2}}).SetInt32s([]int32{1, 2, 3, 4}))
		s := g.AddInitializer((&ir.Tensor{Name: "s", DType: ir.Float32, Dims: []int64{2}}).SetFloats([]float32{1, 1}))
		z := g.AddInitializer(zp)
		g.Outputs = []*ir.Value{g.AddNode("MatMulNBits", "com.microsoft", "mm", []*ir.Value{a, b, s, z}, []string{"y"},
			&ir.Attr{Name: "K", Type: ir.AttrInt, I: 4}, &ir.Attr{Name: "N", Type: ir.AttrInt, I: 2},
			&ir.Attr{Name: "bits", Type: ir.AttrInt, I: 4}, &ir.Attr{Name: "block_size", Type: ir.AttrInt, I: 4}).Outputs[0]}
		m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
		_, err := Run(m, map[string]Value{"a": &Tensor{DType: ir.Float32, Shape: []int{1, 4}, F: []float32{1, 2, 3, 4}}}, Options{})
		if err == nil || !strings.Contains(err.Error(), "zero_points") || strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s zero points: err = %v, want them refused", zp.DType, err)
		}
	}
}

// TestSubZeroPointShapes: a zero point that does not broadcast to the
// input is an error, not a read past its end.
func TestSubZeroPointShapes(t *testing.T) {
	x := &Tensor{DType: ir.Uint8, Shape: []int{3, 4}, I: make([]int64, 12)}
	for _, c := range []struct {
		shape []int
		ok    bool
	}{
		{[]int{1}, true}, {[]int{4}, true}, {[]int{3, 1}, true}, {[]int{1, 4}, true},
		{[]int{2}, false}, {[]int{3, 2}, false}, {[]int{2, 3, 4}, false},
	} {
		zp := &Tensor{DType: ir.Uint8, Shape: c.shape, I: make([]int64, numel(c.shape))}
		_, err := subZeroPoint(x, zp, -1)
		if (err == nil) != c.ok {
			t.Errorf("zero point %v on [3 4]: err = %v, want ok = %v", c.shape, err, c.ok)
		}
	}
}
