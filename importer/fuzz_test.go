package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// FuzzDecode feeds arbitrary bytes to the decoder; whatever decodes is
// verified, inferred and exported again. Nothing may panic. The seed corpus
// is the small shared models plus testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add(reluModel())
	f.Add(modelBytes(nestedIf(4), 17))
	if dir, err := filepath.Abs("../../shared/models"); err == nil {
		for _, p := range onnxFiles(f, dir) {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, Options{})
		if err != nil {
			return
		}
		if ir.Verify(m) != nil {
			return
		}
		ir.InferModel(m, ir.InferOptions{})
		var buf bytes.Buffer
		if err := Export(m, &buf); err != nil {
			return
		}
		if _, err := Decode(buf.Bytes(), Options{}); err != nil {
			t.Fatalf("exported model does not re-import: %v", err)
		}
	})
}

// FuzzDecodeTensor fuzzes the .pb tensor reader.
func FuzzDecodeTensor(f *testing.F) {
	dir, _ := filepath.Abs("../../shared/onnx-node-tests/node/test_add/test_data_set_0")
	for _, n := range []string{"input_0.pb", "output_0.pb"} {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tn, err := DecodeTensor(data)
		if err != nil {
			return
		}
		if n, ok := tn.NumElements(); ok && n <= 1<<16 {
			tn.Float64Values(1 << 16)
		}
	})
}
