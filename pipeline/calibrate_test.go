package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// testLoad is a LoadFunc without the command's limits.
func testLoad(path string, recorded []GivenInput, opt InferOptions) (*Inferred, error) {
	l, err := Load(path, LoadOptions{Inputs: recorded})
	if err != nil {
		return nil, err
	}
	f, err := Infer(l, opt)
	if err != nil {
		l.Close()
	}
	return f, err
}

func cpuPreset(t *testing.T) *hw.Hardware {
	t.Helper()
	h, err := hw.Preset("cpu")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCalibrateTable fits the cpu preset to a measured-op table: one line
// says what was used, the fit is per kernel (not direct: no unprofiled
// runs), and the file is named BASE-calibrated.
func TestCalibrateTable(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "ops.csv")
	rows := "op,dtype,input_shapes,attributes,measured_us\n"
	for _, n := range []string{"64", "256", "1024", "4096", "16384"} {
		rows += "Relu,float32,1x" + n + ",,3\n"
		rows += "MatMul,float32,\"" + n + "x64;64x64\",,40\n"
	}
	if err := os.WriteFile(table, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	var used []string
	c, err := ReadCalibration(CalibrateOptions{Tables: []string{table}, Base: cpuPreset(t), Load: testLoad, Used: func(l string) { used = append(used, l) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := table + ": 10 rows, 10 kernels used"
	if len(c.Lines) != 1 || c.Lines[0] != want || len(used) != 1 || used[0] != want {
		t.Errorf("lines %q, told %q; want [%q]", c.Lines, used, want)
	}
	if len(c.Inputs) != 1 || c.Inputs[0] != table {
		t.Errorf("inputs %q", c.Inputs)
	}
	if c.Direct() {
		t.Error("a table alone chose the direct fit")
	}
	fit, err := c.Fit()
	if err != nil {
		t.Fatal(err)
	}
	if fit.HW.Name != "cpu-calibrated" || fit.Direct != nil || len(fit.Coverage) != 0 || len(fit.Classes) == 0 {
		t.Errorf("fit %q, direct %v, coverage %q, %d classes", fit.HW.Name, fit.Direct, fit.Coverage, len(fit.Classes))
	}
}

// TestCalibrateErrorsNameFileOnce: a measurement that cannot be read is a
// MeasurementError of its kind whose message names the file once (the
// command adds only its flag).
func TestCalibrateErrorsNameFileOnce(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts CalibrateOptions
		kind MeasurementKind
	}{
		{CalibrateOptions{ORT: []string{junk}}, ORTProfile},
		{CalibrateOptions{ORT: []string{"m.onnx=" + junk}}, ORTProfile},
		{CalibrateOptions{Torch: []string{junk}}, TorchTrace},
		{CalibrateOptions{Tables: []string{junk}}, OpTable},
	} {
		tc.opts.Base, tc.opts.Load = cpuPreset(t), testLoad
		_, err := ReadCalibration(tc.opts)
		var me *MeasurementError
		if !errors.As(err, &me) || me.Kind != tc.kind {
			t.Errorf("%+v: %v, want a MeasurementError of kind %d", tc.opts, err, tc.kind)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, junk+": ") || strings.Count(msg, junk) != 1 {
			t.Errorf("%q: want the file named once, first", msg)
		}
	}
}

// TestReadMeasurementLimits: a file over 1 GiB is refused before it is
// read; a missing one is the OS's error.
func TestReadMeasurementLimits(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxMeasurementBytes+1); err != nil {
		t.Skip("no sparse file:", err)
	}
	parsed := false
	_, err := ReadMeasurement(big, func(string, []byte) (int, error) { parsed = true; return 0, nil })
	if err == nil || parsed || !strings.Contains(err.Error(), "larger than the 1 GiB allowed") {
		t.Errorf("%v (parsed %v): want refused unread", err, parsed)
	}
	if _, err := ReadLatency(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSplitProfileArgAndLatencyBeside(t *testing.T) {
	for arg, want := range map[string][2]string{
		"m.onnx=p.json": {"m.onnx", "p.json"},
		"M.ONNX=p.json": {"M.ONNX", "p.json"},
		"a=b.json":      {"", "a=b.json"},
		"p.json":        {"", "p.json"},
	} {
		if m, f := SplitProfileArg(arg); m != want[0] || f != want[1] {
			t.Errorf("SplitProfileArg(%q) = %q, %q", arg, m, f)
		}
	}
	prof := filepath.Join("..", "testdata", "measured", "cpu", "cnn__mnist_cntk_opset7.profile.json")
	if l := LatencyBeside(prof); l == nil || l.TargetUs() <= 0 {
		t.Errorf("no latency record beside %s", prof)
	}
	if l := LatencyBeside(strings.TrimSuffix(prof, ".profile.json") + ".json"); l != nil {
		t.Error("a record found beside a file not named NAME.profile.json")
	}
}

// TestCalibrateDirectOrJoint: CPU profiles with unprofiled records beside
// them are fitted directly (the runs set every parameter) unless Joint
// is asked for, or a table is among the measurements.
func TestCalibrateDirectOrJoint(t *testing.T) {
	models := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	prof := filepath.Join("..", "testdata", "measured", "cpu", "cnn__mnist_cntk_opset7.profile.json")
	opts := CalibrateOptions{ORT: []string{prof}, Base: cpuPreset(t), Models: models, Load: testLoad}
	c, err := ReadCalibration(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Direct() {
		t.Fatal("a CPU profile with its latency record beside it is not fitted directly")
	}
	if len(c.Lines) != 1 || !strings.Contains(c.Lines[0], "end to end: unprofiled run ") || len(c.Inputs) != 3 {
		t.Errorf("lines %q, inputs %q", c.Lines, c.Inputs)
	}
	fit, err := c.Fit()
	if err != nil {
		t.Fatal(err)
	}
	if fit.Direct == nil || fit.Runs != 1 || fit.HW.Name != "cpu-calibrated" {
		t.Errorf("direct %v, %d runs, name %q", fit.Direct, fit.Runs, fit.HW.Name)
	}
	opts.Joint = true
	j, err := ReadCalibration(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Direct() {
		t.Error("Joint chose the direct fit")
	}
	opts.Joint, opts.Base = false, func() *hw.Hardware { h, _ := hw.Preset("h100"); return h }()
	g, err := ReadCalibration(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Direct() {
		t.Error("a GPU base chose the direct fit")
	}
}
