package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// modelsRoot holds the shared real-model corpus.
const modelsRoot = "../../shared/models"

// listModels returns the .onnx files under modelsRoot, relative, sorted.
func listModels(t *testing.T) []string {
	var out []string
	err := filepath.Walk(modelsRoot, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".onnx") {
			rel, _ := filepath.Rel(modelsRoot, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Skipf("models not found under %s", modelsRoot)
	}
	sort.Strings(out)
	return out
}

// loadForEval imports a model and infers shapes with every symbolic dim
// set to 1.
func loadForEval(path string) (*ir.Model, error) {
	m, err := importer.Load(path, importer.Options{})
	if err != nil {
		return nil, err
	}
	dims := map[string]int64{}
	for _, in := range m.Graph.Inputs {
		t := in.Type
		if t.Kind == ir.KindUnknown && in.Declared != nil {
			t = *in.Declared
		}
		for _, d := range t.Shape.Dims {
			if d.Sym != "" {
				dims[d.Sym] = 1
			}
		}
	}
	ir.InferModel(m, ir.InferOptions{Dims: dims})
	for _, in := range m.Graph.Inputs {
		for i, d := range in.Type.Shape.Dims {
			if !d.IsConcrete() {
				in.Type.Shape.Dims[i] = ir.D(1)
			}
		}
	}
	return m, nil
}

// TestModelsProbe evaluates every shared model on random inputs (dims 1)
// and prints which run, which hit unsupported ops and which fail, with
// timings. A diagnostic: set WOLONG_MODELS_PROBE=1 to run it.
func TestModelsProbe(t *testing.T) {
	if os.Getenv("WOLONG_MODELS_PROBE") == "" {
		t.Skip("diagnostic: set WOLONG_MODELS_PROBE=1")
	}
	for _, rel := range listModels(t) {
		start := time.Now()
		m, err := loadForEval(filepath.Join(modelsRoot, rel))
		if err != nil {
			fmt.Printf("%-60s LOAD %v\n", rel, err)
			continue
		}
		in, err := RandomInputs(m.Graph, 1, DefaultMaxMemory)
		if err != nil {
			fmt.Printf("%-60s INPUT %v\n", rel, err)
			m.Close()
			continue
		}
		_, err = Run(m, in, Options{})
		status := "OK"
		if err != nil {
			status = "ERR " + err.Error()
			if IsUnsupported(err) {
				status = "UNSUP " + err.Error()
			}
		}
		if len(status) > 160 {
			status = status[:160]
		}
		fmt.Printf("%-60s %6.2fs %s\n", rel, time.Since(start).Seconds(), status)
		m.Close()
	}
}
