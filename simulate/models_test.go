package simulate

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// modelsDir is the shared model corpus, relative to this package.
const modelsDir = "../../shared/models"

// symbolicDims gives every symbolic dim of g's inputs the value 1 (what
// `wolong profile` does for dims not given with --dim).
func symbolicDims(g *ir.Graph) map[string]int64 {
	dims := map[string]int64{}
	for _, in := range g.Inputs {
		t := in.Type
		if in.Declared != nil {
			t = *in.Declared
		}
		for _, d := range t.Shape.Dims {
			if d.Sym != "" {
				dims[d.Sym] = 1
			}
		}
	}
	return dims
}

// Every model of the shared corpus simulates without error on every
// preset, with consistent totals, in inference (1 and 2 streams) and
// training mode.
func TestSharedModelsOnEveryPreset(t *testing.T) {
	var paths []string
	filepath.WalkDir(modelsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skipf("no models under %s", modelsDir)
	}
	sort.Strings(paths)
	presets := hw.Presets()
	for _, p := range paths {
		name, _ := filepath.Rel(modelsDir, p)
		t.Run(name, func(t *testing.T) {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Skipf("importer: %v", err) // the importer's own tests own this
			}
			defer m.Close()
			ir.InferModel(m, ir.InferOptions{Dims: symbolicDims(m.Graph)})
			for _, h := range presets {
				for _, opt := range []Options{{}, {Streams: 2}, {Mode: Train}} {
					r, err := Run(m, h, opt)
					if err != nil {
						t.Fatalf("%s %+v: %v", h.Name, opt, err)
					}
					if !(r.TotalS > 0) || math.IsInf(r.TotalS, 0) || math.IsNaN(r.PeakMemoryBytes) || r.FLOPs < 0 {
						t.Errorf("%s %+v: total %g s, peak %g, flops %g", h.Name, opt, r.TotalS, r.PeakMemoryBytes, r.FLOPs)
					}
					checkTotals(t, r)
				}
			}
		})
	}
}
