package host_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// sharedModels loads every shared model with its shapes inferred (symbolic
// dims at their defaults, as profile runs them), by path relative to
// ../shared/models; models that do not load are skipped.
func sharedModels(t *testing.T) map[string]*ir.Model {
	t.Helper()
	root := filepath.Join("..", "..", "..", "..", "shared", "models")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/models absent")
	}
	out := map[string]*ir.Model{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".onnx") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		l, err := pipeline.Load(p, pipeline.LoadOptions{})
		if err != nil {
			t.Logf("%s: not loaded: %v", rel, err)
			return nil
		}
		f, err := pipeline.Infer(l, pipeline.InferOptions{DefaultDims: true})
		if err != nil {
			t.Logf("%s: not inferred: %v", rel, err)
			return nil
		}
		out[filepath.ToSlash(rel)] = f.Model
		return nil
	})
	if len(out) < 50 {
		t.Fatalf("%d shared models loaded, want at least 50", len(out))
	}
	return out
}

// suiteCopies lists, per suite model, the shared models it copies nodes of.
func suiteCopies(suite []modelgen.SuiteModel, shared map[string]*ir.Model) []string {
	var out []string
	for _, s := range suite {
		ir.InferModel(s.Model, ir.InferOptions{})
		for name, m := range shared {
			for _, c := range calibrate.Copies(s.Model.Graph, m.Graph) {
				out = append(out, s.Name+": "+name+": "+c.String())
			}
		}
	}
	return out
}

// TestSuiteCopiesNoSharedModel: no node of the calibration suite runs the
// same kernel as a shared model's node (same op, dtype, shapes, constant
// inputs, attributes), nor a near copy of one (calibrate.Copies): the
// suite is generated from op families and shape ranges, and the shared
// models are what its fits are validated on (docs/calibration-protocol.md).
func TestSuiteCopiesNoSharedModel(t *testing.T) {
	shared := sharedModels(t)
	for _, c := range suiteCopies(modelgen.CalibrationSuite(), shared) {
		t.Error(c)
	}
}

// TestSuiteCopiesCanFail plants copies in the suite: a shared model
// itself, and the suite's own MatMulNBits generator at the shared 2-bit
// model's shapes; the check must find both.
func TestSuiteCopiesCanFail(t *testing.T) {
	shared := sharedModels(t)
	planted, err := ir.CloneModel(shared["quant/tract_matmulnbits_2bit.onnx"])
	if err != nil {
		t.Fatal(err)
	}
	suite := []modelgen.SuiteModel{
		{Name: "planted_model", Group: "gemm", Model: planted},
		{Name: "planted_shapes", Group: "gemm", Model: modelgen.MatMulNBitsChain(3, 256, 64, 2)},
	}
	found := map[string]bool{}
	for _, c := range suiteCopies(suite, shared) {
		t.Log(c)
		found[strings.SplitN(c, ":", 2)[0]] = true
	}
	for _, s := range suite {
		if !found[s.Name] {
			t.Errorf("%s: a planted copy of tract_matmulnbits_2bit was not found", s.Name)
		}
	}
}
