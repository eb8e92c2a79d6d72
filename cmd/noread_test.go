//go:build unix

package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

var sink byte

// guardBytes: initializers larger than this are guarded (folding reads up
// to 1 MiB; CSE hashes up to 64 KiB).
const guardBytes = 1 << 20

// countingSource counts the bytes read through a tensor's Source.
type countingSource struct {
	ir.Source
	mu    *sync.Mutex
	count map[string]int64
	name  string
}

func (c *countingSource) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Source.ReadAt(p, off)
	c.mu.Lock()
	c.count[c.name] += int64(n)
	c.mu.Unlock()
	return n, err
}

// guard makes every large initializer's mapped bytes unreadable
// (PROT_NONE: touching them faults, which debug.SetPanicOnFault turns into
// a panic the CLI reports as an internal error) and counts what is read
// through its Source (pread of the file, which leaves memory flat).
func guard(t *testing.T, m *ir.Model, mu *sync.Mutex, count map[string]int64) {
	page := uintptr(os.Getpagesize())
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, v := range g.Initializers {
			c := v.Const
			if c == nil || c.ByteSize() <= guardBytes || len(c.Raw) == 0 || c.Src == nil {
				continue
			}
			p := uintptr(unsafe.Pointer(unsafe.SliceData(c.Raw)))
			start := (p + page - 1) / page * page
			end := (p + uintptr(len(c.Raw))) / page * page
			if end <= start {
				continue
			}
			if err := unix.Mprotect(c.Raw[start-p:end-p], unix.PROT_NONE); err != nil {
				t.Errorf("mprotect %s: %v", v.Name, err)
			}
			c.Src = &countingSource{Source: c.Src, mu: mu, count: count, name: v.Name}
			mu.Lock()
			count[v.Name] += 0
			mu.Unlock()
		}
		return true
	})
}

// noReadModel writes a model whose large weights (1 to 4 MiB each) sit in
// a sparse external file, exercising the passes that look at constants: an
// MLP of same-shape weights (CSE compares them), sibling MatMuls (hbatch
// concatenates their weights), Conv + BatchNorm (bnfold scales the Conv
// weight) and a ReduceSum of a weight (constant folding could fold it).
func noReadModel(t *testing.T, dir string) string {
	t.Helper()
	sf, err := modelgen.NewSparseFile(filepath.Join(dir, "w.onnx.data"))
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	b := modelgen.New("noread", 17)
	must := func(v *ir.Value, err error) *ir.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const h = 1024
	x := b.Input("x", ir.Float32, "N", h)
	for i := 0; i < 3; i++ {
		w := must(sf.Weight(b, fmt.Sprintf("fc%d.weight", i), h, h))
		bias := must(sf.Fill(b, fmt.Sprintf("fc%d.bias", i), h))
		x = b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, w}), bias})})
	}
	wa := must(sf.Weight(b, "sib_a.weight", h, h))
	wb := must(sf.Weight(b, "sib_b.weight", h, h))
	x = b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, wa}), b.Op("MatMul", []*ir.Value{x, wb})})
	sum := b.Op("ReduceSum", []*ir.Value{must(sf.Weight(b, "reduced.weight", h, h))}, modelgen.Int("keepdims", 0))
	y := b.Op("Add", []*ir.Value{x, sum})
	y.Name = "y"
	img := b.Input("image", ir.Float32, "N", 128, 8, 8)
	cw := must(sf.Weight(b, "conv.weight", 512, 128, 3, 3))
	conv := b.Op("Conv", []*ir.Value{img, cw, must(sf.Fill(b, "conv.bias", 512))}, modelgen.Ints("kernel_shape", 3, 3), modelgen.Ints("pads", 1, 1, 1, 1))
	ones, zeros := make([]float32, 512), make([]float32, 512)
	for i := range ones {
		ones[i] = 1
	}
	bn := b.Op("BatchNormalization", []*ir.Value{conv, b.ConstF("bn.scale", []int64{512}, ones...), must(sf.Fill(b, "bn.bias", 512)),
		b.ConstF("bn.mean", []int64{512}, zeros...), b.ConstF("bn.var", []int64{512}, ones...)})
	z := b.Op("Relu", []*ir.Value{bn})
	z.Name = "z"
	b.Output(y, z)
	if err := sf.Finish(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "w.onnx")
	if _, err := importer.WriteFileWith(b.Model(), p, importer.WriteOptions{External: importer.ExternalAlways}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommandsReadNoWeights runs inspect, profile, optimize and explain on
// a model whose large weights are guarded: any touch of their mapped bytes
// faults, and reads through their Sources are counted. inspect and profile
// must read nothing; optimize and explain at most CSE's probe of the
// weights that have a same-shape twin; --emit-onnx streams the weights
// through their Sources (never the mapping), and the model it writes
// computes what the original does.
func TestCommandsReadNoWeights(t *testing.T) {
	dir := t.TempDir()
	model := noReadModel(t, dir)
	var mu sync.Mutex
	count := map[string]int64{}
	loadHook = func(m *ir.Model) { guard(t, m, &mu, count) }
	defer func() { loadHook = nil }()

	// The guard works: a direct read of a guarded weight faults.
	t.Run("guard", func(t *testing.T) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		m, err := importer.Load(model, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		guard(t, m, &mu, map[string]int64{})
		w := m.Graph.Initializers[0].Const
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("reading the guarded %s did not fault", w.Name)
				}
			}()
			sink += w.Raw[len(w.Raw)/2]
		}()
	})

	for _, tc := range []struct {
		args    []string
		maxRead int64 // bytes any one weight may have read
	}{
		{[]string{"inspect", model}, 0},
		{[]string{"profile", model}, 0},
		{[]string{"optimize", model, "-O3"}, 4096},
		{[]string{"explain", model, "-O3", "--diff", "--dot", filepath.Join(dir, "dot")}, 4096},
		{[]string{"optimize", model, "-O3", "--emit-onnx", filepath.Join(dir, "opt.onnx")}, -1},
	} {
		t.Run(strings.Join(tc.args[:1], " ")+fmt.Sprint(len(tc.args)), func(t *testing.T) {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // subtests run on goroutines of their own
			clear(count)
			_, errs, code := run(tc.args...)
			if code != 0 {
				if strings.Contains(errs, "invalid memory address") {
					errs += " (a fault: the mapped bytes of a guarded weight were read)"
				}
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			if len(count) < 7 {
				t.Fatalf("only %d weights guarded", len(count))
			}
			for name, n := range count {
				if tc.maxRead >= 0 && n > tc.maxRead {
					t.Errorf("%s read %d bytes of %s (at most %d allowed)", tc.args[0], n, name, tc.maxRead)
				}
			}
		})
	}
	loadHook = nil
	if _, errs, code := run("verify", model, filepath.Join(dir, "opt.onnx"), "--dim", "N=2"); code != 0 {
		t.Errorf("verify of the emitted model: exit %d: %s", code, errs)
	}
}
