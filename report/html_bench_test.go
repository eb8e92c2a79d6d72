package report

import (
	"io"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// BenchmarkHTML measures what explain --html adds to explain on a
// 10045-node generated transformer (205 layers): Record, the node list
// after each pass (here: the same model recorded 30 times, as explain's
// ~30 passes do), and Write, the page's data gathered and written.
// 2026-12-04, 2-core dev machine under load: Record 0.14 s (1.1 s before
// the key was built in a reused buffer), Write 0.09 s.
func BenchmarkHTML(b *testing.B) {
	m := modelgen.Transformer(205, 1, 128, 256, 4, 1024)
	ir.InferModel(m, ir.InferOptions{})
	b.Run("Record", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rec := NewPassRecorder()
			for k := 0; k < 30; k++ {
				rec.Record("p", m)
			}
		}
	})
	h, _ := hw.Preset("h100")
	pred := &lastSim{h: h}
	rec := NewPassRecorder()
	res, err := optimize.Run(m, optimize.Options{Level: 3, Predictor: pred, Dumps: []optimize.Dump{{KeepUnchanged: true, To: rec}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Write", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e := NewHTMLReport("t.onnx", h.Name, res, rec, pred.last, nil)
			if err := WriteHTML(io.Discard, e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
