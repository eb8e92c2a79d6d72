package modelgen

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// TestMLPSparse generates a 1 GiB MLP in a sparse file: it takes little
// disk, writes and re-imports with its weights referenced in place, and
// each weight is random in its first 4 KiB and zero after, no two alike.
func TestMLPSparse(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "mlp.onnx.data")
	m, err := MLPSparse(8192, 4, data)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := ir.Verify(m); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "mlp.onnx")
	w, err := importer.WriteFileWith(m, p, importer.WriteOptions{External: importer.ExternalAlways})
	if err != nil {
		t.Fatal(err)
	}
	if w.Copied != 0 || w.Referenced != 8 || w.ReferencedBytes < 1<<30 {
		t.Errorf("write: %+v, want 8 weights (1 GiB) referenced", w)
	}
	st, err := os.Stat(data)
	if err != nil {
		t.Fatal(err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blocks*512 > 4<<20 {
		t.Errorf("data file of %d bytes takes %d bytes of disk", st.Size(), sys.Blocks*512)
	}
	back, err := importer.Load(p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	var heads [][]byte
	for _, v := range back.Graph.Initializers {
		c := v.Const
		if len(c.Dims) != 2 {
			continue
		}
		head := c.Raw[:SparseHead]
		for _, h := range heads {
			if bytes.Equal(h, head) {
				t.Errorf("%s: same first bytes as another weight", v.Name)
			}
		}
		heads = append(heads, head)
		if bytes.Equal(head, make([]byte, SparseHead)) || !bytes.Equal(c.Raw[len(c.Raw)-SparseHead:], make([]byte, SparseHead)) {
			t.Errorf("%s: want random first bytes and zeros at the end", v.Name)
		}
	}
	if len(heads) != 4 {
		t.Errorf("%d weights", len(heads))
	}
}
