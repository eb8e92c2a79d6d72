package optimize

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// countedSource counts the bytes read from it.
type countedSource struct {
	*bytes.Reader
	n *int64
}

func (c countedSource) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.Reader.ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}

// TestTensorIndex checks which tensors the CSE index finds equal and how
// much of them it reads to decide.
func TestTensorIndex(t *testing.T) {
	const big = 1 << 20 // bytes, over cseHashMaxBytes
	data := func(seed byte, at int) []byte {
		b := make([]byte, big)
		b[at] = seed
		return b
	}
	for _, tc := range []struct {
		name    string
		a, b    []byte
		dimsB   []int64
		sameLoc bool
		equal   bool
		maxRead int64 // bytes read from both (-1: no bound)
		minRead int64
	}{
		{name: "different shape: nothing read", a: data(1, 0), b: data(1, 0), dimsB: []int64{big / 8, 2}, maxRead: 0},
		{name: "same file location: equal, nothing read", a: data(1, 0), b: data(2, 0), sameLoc: true, equal: true, maxRead: 0},
		{name: "first bytes differ: probes only", a: data(1, 0), b: data(2, 0), maxRead: 2 * cseProbeBytes},
		{name: "last byte differs: compared to the end", a: data(1, big-1), b: data(2, big-1), minRead: 2 * big, maxRead: 2*big + 2*cseProbeBytes},
		{name: "middle differs: early exit", a: data(1, big/4), b: data(2, big/4), maxRead: big/2 + 2*cseCompareChunk + 2*cseProbeBytes},
		{name: "equal: read whole", a: data(1, 7), b: data(1, 7), equal: true, minRead: 2 * big, maxRead: -1},
		{name: "small: hashed", a: []byte{1, 2, 3, 4, 5, 6, 7, 8}, b: []byte{1, 2, 3, 4, 5, 6, 7, 8}, equal: true, maxRead: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n int64
			mk := func(name string, b []byte, dims []int64, off int64) *ir.Tensor {
				if dims == nil {
					dims = []int64{int64(len(b)) / 4}
				}
				return &ir.Tensor{Name: name, DType: ir.Float32, Dims: dims, Src: countedSource{bytes.NewReader(b), &n},
					Loc: ir.Location{File: "/w.data", Offset: off, Length: int64(len(b)), External: true}}
			}
			ta := mk("a", tc.a, nil, 0)
			offB := int64(big)
			if tc.sameLoc {
				offB = 0
			}
			tb := mk("b", tc.b, tc.dimsB, offB)
			x := newTensorIndex(nil)
			if c := x.canonical(ta); c != ta {
				t.Fatalf("first tensor not its own canonical")
			}
			got := x.canonical(tb) == ta
			if got != tc.equal {
				t.Errorf("equal: have %v, want %v", got, tc.equal)
			}
			if tc.maxRead >= 0 && n > tc.maxRead || n < tc.minRead {
				t.Errorf("read %d bytes, want %d..%d", n, tc.minRead, tc.maxRead)
			}
		})
	}
}

// TestCSELargeConstants merges Constant nodes and initializers holding the
// same large tensor, and keeps apart large ones that differ only at the
// end (merging those would change the outputs, which runPassCases
// compares).
func TestCSELargeConstants(t *testing.T) {
	const n = 1 << 16 // float32 elements: 256 KiB
	vals := func(last float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i % 7)
		}
		v[n-1] = last
		return v
	}
	cst := func(b *modelgen.Builder, v []float32) *ir.Value {
		raw := b.ConstF("tmp", []int64{n}, v...).Const
		b.G.Initializers = b.G.Initializers[:len(b.G.Initializers)-1]
		return b.Op("Constant", nil, &ir.Attr{Name: "value", Type: ir.AttrTensor, T: raw})
	}
	runPassCases(t, []passCase{{
		name: "large constants",
		build: func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, n)
			w1 := b.ConstF("w1", []int64{n}, vals(1)...)
			w2 := b.ConstF("w2", []int64{n}, vals(1)...)
			w3 := b.ConstF("w3", []int64{n}, vals(2)...)
			c1, c2, c3 := cst(b, vals(3)), cst(b, vals(3)), cst(b, vals(4))
			y := b.Op("Add", in(b.Op("Mul", in(x, w1)), b.Op("Mul", in(x, w2))))
			y = b.Op("Add", in(y, b.Op("Mul", in(x, w3))))
			y = b.Op("Add", in(y, b.Op("Add", in(c1, c2))))
			b.Output(b.Op("Add", in(y, c3)))
		},
		passes: []string{"cse"},
		want:   []string{`^cse: w2 -> w1  \(identical initializer\)`, `^cse: Mul_1 -> Mul_0`, `^cse: Constant_1 -> Constant_0`},
	}})
}

// TestDataHash: every one-bit change of a buffer, and every length of its
// prefixes (zero bytes included), hashes differently.
func TestDataHash(t *testing.T) {
	buf := make([]byte, 37)
	seen := map[uint64]string{}
	add := func(h uint64, what string) {
		if w, dup := seen[h]; dup {
			t.Fatalf("%s and %s hash alike", what, w)
		}
		seen[h] = what
	}
	for n := 0; n <= len(buf); n++ {
		add(dataHash(buf[:n]), fmt.Sprintf("%d zero bytes", n))
	}
	for i := range buf {
		for bit := 0; bit < 8; bit++ {
			b := make([]byte, len(buf))
			b[i] = 1 << bit
			add(dataHash(b), fmt.Sprintf("bit %d of byte %d", bit, i))
		}
	}
}

// countedWeights adds n float32 initializers of dims, read through a
// countedSource that adds to *read; data(i) is the i-th one's data.
func countedWeights(b *modelgen.Builder, n int, dims func(i int) []int64, data func(i int) []float32, read *int64) []*ir.Value {
	var vs []*ir.Value
	for i := range n {
		raw := b.ConstF("tmp", dims(i), data(i)...).Const.Raw
		b.G.Initializers = b.G.Initializers[:len(b.G.Initializers)-1]
		vs = append(vs, b.G.AddInitializer(&ir.Tensor{Name: fmt.Sprintf("w%d", i), DType: ir.Float32, Dims: dims(i),
			Src: countedSource{bytes.NewReader(raw), read}}))
	}
	return vs
}

// TestCSEDistinctSmallConstants: CSE over many nodes whose small
// constants all differ reads none of a constant alone of its dtype and
// dims, and no more than the first cseHeadBytes of one that shares them
// with others but differs in those bytes.
func TestCSEDistinctSmallConstants(t *testing.T) {
	const n = 300
	for _, tc := range []struct {
		name    string
		dims    func(i int) []int64
		maxRead int64
	}{
		{"distinct shapes: nothing read", func(i int) []int64 { return []int64{int64(i + 1), 1} }, 0},
		{"one shape: first bytes only", func(int) []int64 { return []int64{64} }, n * cseHeadBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var read int64
			b := modelgen.New("distinct", 17)
			x := b.Input("x", ir.Float32, 1)
			ws := countedWeights(b, n, tc.dims, func(i int) []float32 {
				v := make([]float32, tc.dims(i)[0])
				v[0] = float32(i)
				return v
			}, &read)
			var outs []*ir.Value
			for _, w := range ws {
				outs = append(outs, b.Op("Mul", in(x, w)))
			}
			b.Output(outs...)
			m := b.Model()
			ir.InferModel(m, ir.InferOptions{})
			read = 0
			res, err := Run(m, Options{Level: MaxLevel, Only: []string{"cse"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Passes {
				if len(p.Rewrites) > 0 {
					t.Errorf("%s: %d rewrites, want none", p.Name, len(p.Rewrites))
				}
			}
			if read > tc.maxRead {
				t.Errorf("read %d bytes of constants, want at most %d", read, tc.maxRead)
			}
		})
	}
}

// TestCSEEqualSmallConstants: equal small constants still merge, and so
// then do the nodes that read them, whether the data fits in the first
// bytes hashed or not; constants that share only their first bytes stay
// apart.
func TestCSEEqualSmallConstants(t *testing.T) {
	vals := func(n int, last float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i % 5)
		}
		v[n-1] = last
		return v
	}
	runPassCases(t, []passCase{{
		name: "equal small constants",
		build: func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, 64)
			w1 := b.ConstF("w1", []int64{64}, vals(64, 1)...)
			w2 := b.ConstF("w2", []int64{64}, vals(64, 2)...) // same first bytes as w1
			w3 := b.ConstF("w3", []int64{64}, vals(64, 1)...)
			s1 := b.ConstF("s1", []int64{1}, 3)
			s2 := b.ConstF("s2", []int64{1}, 3)
			y := b.Op("Add", in(b.Op("Mul", in(x, w1)), b.Op("Mul", in(x, w2))))
			y = b.Op("Add", in(y, b.Op("Mul", in(x, w3))))
			y = b.Op("Add", in(y, b.Op("Mul", in(x, s1))))
			b.Output(b.Op("Add", in(y, b.Op("Mul", in(x, s2)))))
		},
		passes: []string{"cse"},
		want: []string{`^cse: w3 -> w1  \(identical initializer\)`, `^cse: s2 -> s1  \(identical initializer\)`,
			`^cse: Mul_2 -> Mul_0`, `^cse: Mul_4 -> Mul_3`},
		ops: "Mul Mul Add Add Mul Add Add",
	}})
}
