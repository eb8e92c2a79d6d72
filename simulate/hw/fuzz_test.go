package hw

import (
	"bytes"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// FuzzParse feeds arbitrary bytes to the hardware-file reader, seeded with
// every preset. Whatever parses must validate and answer peak queries
// without panicking, and must round-trip through WriteJSON.
func FuzzParse(f *testing.F) {
	for _, h := range Presets() {
		var buf bytes.Buffer
		if err := h.WriteJSON(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"name":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, dt := range []ir.DType{ir.Float32, ir.Float16, ir.BFloat16, ir.Int8, ir.Float8E4M3FN} {
			h.PeakFLOPS(dt, Vector, false)
			h.PeakFLOPS(dt, Vector, true)
		}
		for _, c := range h.Efficiency.Classes() {
			_ = c
		}
		var buf bytes.Buffer
		if err := h.WriteJSON(&buf); err != nil {
			t.Fatalf("write: %v", err)
		}
		if _, err := Parse(&buf); err != nil {
			t.Fatalf("a parsed file does not re-parse after WriteJSON: %v", err)
		}
	})
}
