package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestEmitExternalData writes the optimized sample CNN with
// --external-data always: the weights go to OUT.onnx.data, the run says
// so, and verify finds the written model computes what the original does;
// a bad mode is a usage error.
func TestEmitExternalData(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	opt := filepath.Join(dir, "out", "opt.onnx")
	os.Mkdir(filepath.Dir(opt), 0o755)
	out, errs, code := run("optimize", model, "--emit-onnx", opt, "--external-data", "always")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err := os.Stat(opt + ".data")
	if err != nil || st.Size() == 0 {
		t.Fatalf("no external data file: %v", err)
	}
	if !strings.Contains(out, "written as external data to "+opt+".data") {
		t.Errorf("output does not say where the weights went:\n%s", out)
	}
	if _, errs, code := run("verify", model, opt, "--dim", "N=2"); code != 0 {
		t.Errorf("verify: exit %d: %s", code, errs)
	}
	if _, errs, code := run("optimize", model, "--emit-onnx", opt, "--external-data", "sometimes"); code != 2 || !strings.Contains(errs, "--external-data") {
		t.Errorf("bad mode: exit %d: %s", code, errs)
	}
}
