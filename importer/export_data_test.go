package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// zeroSource is n bytes of zeros that no memory holds.
type zeroSource int64

func (z zeroSource) Size() int64 { return int64(z) }
func (z zeroSource) ReadAt(p []byte, off int64) (int, error) {
	n := int(min(int64(len(p)), max(int64(z)-off, 0)))
	clear(p[:n])
	return n, nil
}

// initBytes reads every initializer's data by name.
func initBytes(t *testing.T, m *ir.Model) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, v := range m.Graph.Initializers {
		b, err := v.Const.Packed(1 << 30)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			b = []byte("typed")
		}
		out[v.Name] = b
	}
	return out
}

func loadT(t *testing.T, p string) *ir.Model {
	t.Helper()
	m, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestExternalDataWrite writes a model with external data, then writes the
// re-imported model again: into the same folder the weights are
// referenced where they are, elsewhere they are copied; each output
// re-imports with the same bytes, at page-aligned offsets.
func TestExternalDataWrite(t *testing.T) {
	dir := t.TempDir()
	src := modelgen.SampleCNN()
	want := initBytes(t, src)
	p := filepath.Join(dir, "cnn.onnx")
	w, err := WriteFileWith(src, p, WriteOptions{External: ExternalAlways})
	if err != nil {
		t.Fatal(err)
	}
	if w.DataFile != p+".data" || w.Copied == 0 || w.Referenced != 0 {
		t.Errorf("first write: %+v, want copies into %s.data", w, p)
	}
	check := func(path, wantFile string) *ir.Model {
		t.Helper()
		m := loadT(t, path)
		have := initBytes(t, m)
		external := 0
		for _, v := range m.Graph.Initializers {
			if !bytes.Equal(have[v.Name], want[v.Name]) {
				t.Errorf("%s: %s: data differs", path, v.Name)
			}
			l := v.Const.Loc
			if v.Const.ByteSize() >= 1024 != l.External {
				t.Errorf("%s: %s (%d bytes): external %v", path, v.Name, v.Const.ByteSize(), l.External)
			}
			if l.External {
				external++
				if l.ExternalPath() != wantFile || l.Offset%extAlign != 0 {
					t.Errorf("%s: %s at %s+%d, want %s at a multiple of %d", path, v.Name, l.ExternalPath(), l.Offset, wantFile, extAlign)
				}
			}
		}
		if external == 0 {
			t.Errorf("%s: no external initializer", path)
		}
		return m
	}
	m := check(p, "cnn.onnx.data")

	// same folder: referenced in place, no data file
	p2 := filepath.Join(dir, "again.onnx")
	if w, err = WriteFileWith(m, p2, WriteOptions{External: ExternalAlways}); err != nil {
		t.Fatal(err)
	}
	if w.Copied != 0 || w.Referenced == 0 || w.DataFile != "" || len(w.ReferencedFiles) != 1 || w.ReferencedFiles[0] != "cnn.onnx.data" {
		t.Errorf("same folder: %+v, want references to cnn.onnx.data only", w)
	}
	if _, err := os.Stat(p2 + ".data"); err == nil {
		t.Errorf("same folder: %s.data written", p2)
	}
	check(p2, "cnn.onnx.data")

	// another folder: copied
	other := filepath.Join(dir, "sub")
	os.Mkdir(other, 0o755)
	p3 := filepath.Join(other, "copy.onnx")
	if w, err = WriteFileWith(m, p3, WriteOptions{External: ExternalAlways}); err != nil {
		t.Fatal(err)
	}
	if w.Referenced != 0 || w.Copied == 0 {
		t.Errorf("other folder: %+v, want copies", w)
	}
	check(p3, "copy.onnx.data")

	// inline again (the default below 2 GiB)
	p4 := filepath.Join(other, "inline.onnx")
	if err := WriteFile(m, p4); err != nil {
		t.Fatal(err)
	}
	for _, v := range loadT(t, p4).Graph.Initializers {
		if v.Const.Loc.External {
			t.Errorf("inline: %s is external", v.Name)
		}
	}
}

// TestExternalDataNameTaken writes a model whose weights are in a file
// named as the output's data file would be: the weights are referenced and
// what must be copied goes to OUT.1.data, never over the input.
func TestExternalDataNameTaken(t *testing.T) {
	dir := t.TempDir()
	sf, err := modelgen.NewSparseFile(filepath.Join(dir, "y.onnx.data"))
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	b := modelgen.New("taken", 17)
	x := b.Input("x", ir.Float32, 1, 512)
	w, err := sf.Weight(b, "w", 512, 512)
	if err != nil {
		t.Fatal(err)
	}
	y := b.Op("MatMul", []*ir.Value{x, w})
	y = b.Op("MatMul", []*ir.Value{y, b.Weight("fresh", 512, 512)})
	b.Output(y)
	sf.Finish()
	before, _ := os.ReadFile(filepath.Join(dir, "y.onnx.data"))
	out := filepath.Join(dir, "y.onnx")
	res, err := WriteFileWith(b.Model(), out, WriteOptions{External: ExternalAlways})
	if err != nil {
		t.Fatal(err)
	}
	if res.DataFile != out+".1.data" || res.Referenced != 1 || res.Copied != 1 {
		t.Errorf("have %+v, want one reference and one copy into %s.1.data", res, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "y.onnx.data")); !bytes.Equal(before, after) {
		t.Errorf("the input's data file changed")
	}
	m := loadT(t, out)
	if len(m.Graph.Initializers) != 2 {
		t.Fatalf("%d initializers", len(m.Graph.Initializers))
	}
}

// TestExternalDataOver2GiB exports a model of 2.1 GiB of weights (zeros
// that no memory holds): WriteFile puts them in external data, as holes,
// and the model re-imports; Export to a writer refuses with a clear error.
func TestExternalDataOver2GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2.1 GiB of zeros")
	}
	dir := t.TempDir()
	const n = 2200 << 20
	b := modelgen.New("big", 17)
	x := b.Input("x", ir.Float32, n/4)
	w := b.G.AddInitializer(&ir.Tensor{Name: "w", DType: ir.Float32, Dims: []int64{n / 4}, Src: zeroSource(n)})
	b.Output(b.Op("Add", []*ir.Value{x, w}))
	m := b.Model()
	if err := Export(m, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "2 GiB") {
		t.Errorf("Export: have %v, want the 2 GiB limit", err)
	}
	p := filepath.Join(dir, "big.onnx")
	if err := WriteFile(m, p); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p + ".data")
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != n {
		t.Errorf("data file: %d bytes, want %d", st.Size(), n)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blocks*512 > 1<<20 {
		t.Errorf("data file of zeros takes %d bytes of disk, want holes", sys.Blocks*512)
	}
	if ms, _ := os.Stat(p); ms.Size() > 1<<20 {
		t.Errorf("model file: %d bytes", ms.Size())
	}
	back := loadT(t, p)
	if l := back.Graph.Initializers[0].Const.Loc; !l.External || l.Length != n {
		t.Errorf("re-imported: %+v", l)
	}
}

// TestFileSourceChecksIdentity reads a mapped weight through its Source,
// then replaces the file: a Source opening the path refuses the new file.
func TestFileSourceChecksIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cnn.onnx")
	if _, err := WriteFileWith(modelgen.SampleCNN(), p, WriteOptions{External: ExternalAlways}); err != nil {
		t.Fatal(err)
	}
	m := loadT(t, p)
	var c *ir.Tensor
	for _, v := range m.Graph.Initializers {
		if v.Const.Loc.External {
			c = v.Const
			break
		}
	}
	if c == nil || c.Src == nil {
		t.Fatalf("no external initializer with a Source")
	}
	buf := make([]byte, c.Src.Size())
	if _, err := c.Src.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, c.Raw) {
		t.Fatalf("Source read: %v, equal %v", err, bytes.Equal(buf, c.Raw))
	}
	data, _ := os.ReadFile(p + ".data")
	tmp := p + ".new"
	os.WriteFile(tmp, data, 0o644)
	if err := os.Rename(tmp, p+".data"); err != nil {
		t.Fatal(err)
	}
	mc := *c.Src.(*fileSource).m
	mc.owner = nil // no cached descriptor: the next read opens the path
	s := &fileSource{m: &mc, off: 0, n: 4}
	if _, err := s.ReadAt(make([]byte, 4), 0); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("read after the file was replaced: have %v, want an error", err)
	}
}
