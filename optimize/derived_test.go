package optimize

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// readRanges reads s at random offsets and lengths (and whole) and checks
// every read against want.
func readRanges(t *testing.T, s ir.Source, want []byte) {
	t.Helper()
	if s.Size() != int64(len(want)) {
		t.Fatalf("Size %d, want %d", s.Size(), len(want))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		off := r.IntN(len(want) + 1)
		n := r.IntN(len(want) - off + 1)
		if i == 0 {
			off, n = 0, len(want)
		}
		p := make([]byte, n)
		k, err := s.ReadAt(p, int64(off))
		if k != n || (err != nil && off+n != len(want)) {
			t.Fatalf("ReadAt(%d bytes at %d): %d, %v", n, off, k, err)
		}
		if !bytes.Equal(p, want[off:off+n]) {
			t.Fatalf("ReadAt(%d bytes at %d) differs", n, off)
		}
	}
	if k, err := s.ReadAt(make([]byte, 1), int64(len(want))); k != 0 || err == nil {
		t.Errorf("read past the end: %d, %v", k, err)
	}
}

func f32(name string, dims []int64, r *rand.Rand) (*ir.Tensor, []float32) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return f32Tensor(name, dims, v), v
}

// TestConcatSource compares concatenated weights, read in random pieces,
// with a concatenation done element by element.
func TestConcatSource(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name  string
		dims  [][]int64
		axis  int
		outer int64
	}{
		{"rows", [][]int64{{3, 5}, {2, 5}, {4, 5}}, 0, 1},
		{"columns", [][]int64{{6, 3}, {6, 1}, {6, 4}}, 1, 6},
		{"3-D middle", [][]int64{{2, 3, 4}, {2, 5, 4}}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ts []*ir.Tensor
			var vals [][]float32
			for i, d := range tc.dims {
				tt, v := f32("p"+string(rune('0'+i)), d, r)
				ts, vals = append(ts, tt), append(vals, v)
			}
			got := concatConsts("cat", ts, tc.axis)
			if got == nil || got.Src == nil || got.Raw != nil {
				t.Fatalf("concatConsts: %+v, want a derived tensor", got)
			}
			var want []byte
			for o := int64(0); o < tc.outer; o++ {
				for _, v := range vals {
					per := int64(len(v)) / tc.outer
					for _, x := range v[o*per : (o+1)*per] {
						want = binary.LittleEndian.AppendUint32(want, math.Float32bits(x))
					}
				}
			}
			readRanges(t, got.Src, want)
			if err := got.CheckData(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestScaleSource compares a BatchNorm-folded weight, read in random
// pieces, with the per-channel product computed directly.
func TestScaleSource(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w, v := f32("w", []int64{4, 3, 2, 2}, r)
	scale := []float64{0.5, -2, 3.25, 1e-3}
	var want []byte
	for i, x := range v {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(float32(float64(x)*scale[i/12])))
	}
	readRanges(t, &scaleSource{w: packedSource(w), per: 12, scale: scale}, want)
}

// callCounter counts the ReadAt calls made on it.
type callCounter struct {
	ir.Source
	calls *int
}

func (c callCounter) ReadAt(p []byte, off int64) (int, error) {
	*c.calls++
	return c.Source.ReadAt(p, off)
}

// TestConcatSourceGathers: a read spanning many outer blocks of a weight
// concatenated along its last axis reads each part once, not once per
// block and part (each read of an imported weight is a pread).
func TestConcatSourceGathers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, _ := f32("a", []int64{64, 16}, r)
	b, _ := f32("b", []int64{64, 16}, r)
	c, _ := f32("c", []int64{64, 16}, r)
	cat := concatConsts("cat", []*ir.Tensor{a, b, c}, 1)
	src, ok := cat.Src.(*concatSource)
	if !ok {
		t.Fatalf("concatConsts gave %T", cat.Src)
	}
	calls := 0
	for i, p := range src.parts {
		src.parts[i] = callCounter{p, &calls}
	}
	whole := make([]byte, src.Size())
	if err := readFull(src, whole, 0); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("a whole read of 3 parts x 64 blocks made %d part reads, want 3", calls)
	}
	calls = 0
	if err := readFull(src, make([]byte, 10), 100); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("a read within one block made %d part reads, want 1", calls)
	}
}
