package ir_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// printParsePrint prints m, parses the text and prints the parsed model:
// the two texts must be the same.
func printParsePrint(t *testing.T, m *ir.Model) {
	t.Helper()
	var a, b bytes.Buffer
	if err := ir.Fprint(&a, m); err != nil {
		t.Fatal(err)
	}
	p, err := ir.Parse(a.String())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := ir.Fprint(&b, p); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		al, bl := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("print -> parse -> print differs at line %d:\n printed  %s\n reprinted %s", i+1, al[i], bl[i])
			}
		}
		t.Fatalf("print -> parse -> print differs in length: %d vs %d lines", len(al), len(bl))
	}
	if err := ir.Verify(p); err != nil && ir.Verify(m) == nil {
		t.Fatalf("the parsed model does not verify: %v", err)
	}
}

// TestPrintParsePrintModels: print -> parse -> print is the identity on
// every shared model (../shared/models, skipped when absent) and on the
// generated ones.
func TestPrintParsePrintModels(t *testing.T) {
	for name, m := range modelgen.Samples() {
		t.Run("gen/"+name, func(t *testing.T) {
			ir.InferModel(m, ir.InferOptions{})
			printParsePrint(t, m)
		})
	}
	const dir = "../../shared/models"
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skipf("no models under %s", dir)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name, _ := filepath.Rel(dir, p)
		t.Run(name, func(t *testing.T) {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Skipf("importer: %v", err) // the importer's tests own this
			}
			defer m.Close()
			printParsePrint(t, m)
		})
	}
}
