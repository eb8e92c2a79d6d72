package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func TestStridedOffsets(t *testing.T) {
	tests := []struct {
		name           string
		shape, strides []int
		base           int
		want           []int
	}{
		{"scalar", []int{}, []int{}, 5, []int{5}},
		{"empty", []int{2, 0, 3}, []int{9, 3, 1}, 0, []int{}},
		{"row-major", []int{2, 3}, []int{3, 1}, 0, []int{0, 1, 2, 3, 4, 5}},
		// Transpose of a [2,3] tensor: out[i][j] = in[j][i].
		{"transpose", []int{3, 2}, []int{1, 3}, 0, []int{0, 3, 1, 4, 2, 5}},
		// Broadcast of a [3] row to [2,3]: dim 0 has stride 0.
		{"broadcast", []int{2, 3}, []int{0, 1}, 0, []int{0, 1, 2, 0, 1, 2}},
		// in[1:5:2] of a [6] vector, then reversed steps: base 1, step 2.
		{"slice", []int{2}, []int{2}, 1, []int{1, 3}},
		{"reverse", []int{3}, []int{-1}, 5, []int{5, 4, 3}},
		// Columns 1..2 of rows 0..1 of a [3,4] matrix.
		{"window", []int{2, 2}, []int{4, 1}, 1, []int{1, 2, 5, 6}},
		{"three-d", []int{2, 2, 2}, []int{1, 4, 2}, 0, []int{0, 2, 4, 6, 1, 3, 5, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stridedOffsets(tc.shape, tc.strides, tc.base)
			if !equalInts(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOffsetWalkWraps(t *testing.T) {
	// After the last element the walk is back at the start.
	w := newOffsetWalk([]int{2, 3}, []int{1, 2}, 7)
	for k := 0; k < 6; k++ {
		w.next()
	}
	if w.off != 7 || !equalInts(w.idx, []int{0, 0}) {
		t.Fatalf("after a full walk: off %d idx %v, want 7 [0 0]", w.off, w.idx)
	}
}

func TestForEachIndex(t *testing.T) {
	tests := []struct {
		shape []int
		want  string
	}{
		{[]int{}, "0:[] "},
		{[]int{0, 2}, ""},
		{[]int{3}, "0:[0] 1:[1] 2:[2] "},
		{[]int{2, 2}, "0:[0 0] 1:[0 1] 2:[1 0] 3:[1 1] "},
		{[]int{1, 2, 1}, "0:[0 0 0] 1:[0 1 0] "},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.shape), func(t *testing.T) {
			got := ""
			forEachIndex(tc.shape, func(k int, ix []int) { got += fmt.Sprintf("%d:%v ", k, ix) })
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMappedOffsets(t *testing.T) {
	identity := func(d, v int) int { return v }
	tests := []struct {
		name       string
		shape, src []int
		miss       int
		at         func(d, v int) int
		want       []int
	}{
		{"scalar", []int{}, []int{}, 9, identity, []int{0}},
		{"empty", []int{2, 0}, []int{2, 3}, 9, identity, []int{}},
		{"identity", []int{2, 3}, []int{2, 3}, 9, identity, []int{0, 1, 2, 3, 4, 5}},
		// Tile a [2] vector twice: positions 0 1 0 1.
		{"tile", []int{4}, []int{2}, 9, func(d, v int) int { return v % 2 }, []int{0, 1, 0, 1}},
		// Pad a [2,2] matrix with one constant column on the left.
		{"pad", []int{2, 3}, []int{2, 2}, 4, func(d, v int) int { return v - d }, []int{4, 0, 1, 4, 2, 3}},
		// Row 1 of a [4,2] matrix, then a missing row.
		{"crop", []int{2, 2}, []int{4, 2}, 7, func(d, v int) int {
			if d == 0 && v == 1 {
				return -1
			}
			return v + 1 - d
		}, []int{2, 3, 7, 7}},
		// A miss in an outer dim covers its whole row.
		{"outer miss", []int{2, 3}, []int{1, 3}, 8, func(d, v int) int {
			if d == 0 {
				return v - 1
			}
			return v
		}, []int{8, 8, 8, 0, 1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mappedOffsets(tc.shape, tc.src, tc.miss, tc.at)
			if !equalInts(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPadSource(t *testing.T) {
	tests := []struct {
		mode string
		n    int
		in   []int
		want []int
	}{
		{"constant", 3, []int{-2, -1, 0, 2, 3, 4}, []int{-1, -1, 0, 2, -1, -1}},
		{"reflect", 3, []int{-3, -2, -1, 0, 2, 3, 4, 5}, []int{1, 2, 1, 0, 2, 1, 0, 1}},
		{"reflect", 1, []int{-2, 0, 1}, []int{0, 0, 0}},
		{"edge", 3, []int{-2, -1, 0, 2, 3, 9}, []int{0, 0, 0, 2, 2, 2}},
		{"wrap", 3, []int{-4, -1, 0, 2, 3, 7}, []int{2, 2, 0, 2, 0, 1}},
		{"bogus", 3, []int{-1, 1, 3}, []int{-1, 1, -1}},
		{"wrap", 0, []int{0, 1}, []int{-1, -1}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.mode, tc.n), func(t *testing.T) {
			for i, p := range tc.in {
				if got := padSource(p, tc.n, tc.mode); got != tc.want[i] {
					t.Errorf("padSource(%d, %d, %s) = %d, want %d", p, tc.n, tc.mode, got, tc.want[i])
				}
			}
		})
	}
}

// benchOp times one node on a float32 input x of shape [32,64,128] (1 Mi
// elements); extra inputs are int64 constants.
func benchOp(b *testing.B, op string, consts map[string][]int64, attrs ...*ir.Attr) {
	shape := []int{32, 64, 128}
	g := ir.NewGraph("g")
	ins := []*ir.Value{g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(32, 64, 128)))}
	for _, name := range []string{"a", "b", "c", "d"} {
		v, ok := consts[name]
		if !ok {
			continue
		}
		dims := []int64{int64(len(v))}
		if name == "a" && op == "GatherElements" {
			dims = []int64{32, 64, 128}
		}
		ins = append(ins, g.AddInitializer((&ir.Tensor{Name: name, DType: ir.Int64, Dims: dims}).SetInt64s(v)))
	}
	n := g.AddNode(op, "", "n", ins, []string{"y"}, attrs...)
	g.Outputs = []*ir.Value{n.Outputs[0]}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 18}}, Graph: g}
	x := NewFloat32(shape, make([]float32, numel(shape)))
	in := map[string]Value{"x": x}
	if _, err := Run(m, in, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(m, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndexKernels(b *testing.B) {
	gi := make([]int64, 32*64*128)
	for i := range gi {
		gi[i] = int64(i % 64)
	}
	b.Run("Transpose", func(b *testing.B) {
		benchOp(b, "Transpose", nil, &ir.Attr{Name: "perm", Type: ir.AttrInts, Ints: []int64{2, 0, 1}})
	})
	b.Run("Slice", func(b *testing.B) {
		benchOp(b, "Slice", map[string][]int64{"a": {0, 1}, "b": {32, 127}, "c": {0, 2}, "d": {1, 1}})
	})
	b.Run("Pad", func(b *testing.B) {
		benchOp(b, "Pad", map[string][]int64{"a": {0, 2, 2, 0, 2, 2}}, &ir.Attr{Name: "mode", Type: ir.AttrString, S: []byte("reflect")})
	})
	b.Run("Tile", func(b *testing.B) {
		benchOp(b, "Tile", map[string][]int64{"a": {1, 2, 1}})
	})
	b.Run("GatherElements", func(b *testing.B) {
		benchOp(b, "GatherElements", map[string][]int64{"a": gi}, &ir.Attr{Name: "axis", Type: ir.AttrInt, I: 1})
	})
	b.Run("Gather", func(b *testing.B) {
		benchOp(b, "Gather", map[string][]int64{"a": {3, 1, 4, 1, 5, 9, 2, 6}}, &ir.Attr{Name: "axis", Type: ir.AttrInt, I: 1})
	})
}

func TestZipBroadcast(t *testing.T) {
	sub := func(x, y int64) int64 { return x - y }
	tests := []struct {
		name string
		a    []int64
		ia   []int
		b    []int64
		ib   []int
		n    int
		want []int64
	}{
		{"same shape", []int64{5, 7, 9}, nil, []int64{1, 2, 3}, nil, 3, []int64{4, 5, 6}},
		// [2,3] - [3]: b's row repeats.
		{"broadcast b", []int64{10, 20, 30, 40, 50, 60}, nil, []int64{1, 2, 3}, []int{0, 1, 2, 0, 1, 2}, 6, []int64{9, 18, 27, 39, 48, 57}},
		// [2,1] - [1,2]: both broadcast to [2,2].
		{"outer", []int64{10, 20}, []int{0, 0, 1, 1}, []int64{1, 2}, []int{0, 1, 0, 1}, 4, []int64{9, 8, 19, 18}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]int64, tc.n)
			zipBroadcast(out, tc.a, tc.ia, tc.b, tc.ib, sub)
			for k := range out {
				if out[k] != tc.want[k] {
					t.Fatalf("got %v, want %v", out, tc.want)
				}
			}
		})
	}
}

func TestElementWalk(t *testing.T) {
	tests := []struct {
		name         string
		dims, ishape []int
		axis         int
		idx          []int64
		want         []int // offsets; nil when an error is wanted
		err          string
	}{
		// data [2,3], indices [2,2] along axis 1: row r, column idx.
		{"axis 1", []int{2, 3}, []int{2, 2}, 1, []int64{2, 0, -1, 1}, []int{2, 0, 5, 4}, ""},
		// along axis 0: row idx, column c.
		{"axis 0", []int{2, 3}, []int{1, 3}, 0, []int64{1, 0, 1}, []int{3, 1, 5}, ""},
		{"bad index", []int{2, 3}, []int{1, 2}, 1, []int64{0, 3}, nil, "index 3 out of range"},
		// indices [3,1] exceed data rows off the axis.
		{"exceeds", []int{2, 3}, []int{3, 1}, 1, []int64{0, 1, 2}, nil, "exceeds data shape"},
		{"exceeds, fine so far", []int{2, 3}, []int{3, 1}, 1, []int64{0, 1}, []int{0, 4}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newElementWalk(tc.dims, tc.ishape, tc.axis)
			var got []int
			for _, i := range tc.idx {
				off, err := w.offset(i)
				if err != nil {
					if tc.err == "" || !strings.Contains(err.Error(), tc.err) {
						t.Fatalf("error %v, want %q", err, tc.err)
					}
					return
				}
				got = append(got, off)
				w.next()
			}
			if tc.err != "" {
				t.Fatalf("no error, want %q", tc.err)
			}
			if !equalInts(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
