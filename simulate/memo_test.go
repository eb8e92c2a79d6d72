package simulate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// memoChecker predicts as the optimizer's predictor does (each run built
// in the last one, with the estimate memo) and holds every prediction to
// a fresh simulation of the same model.
type memoChecker struct {
	t      *testing.T
	name   string
	h      *hw.Hardware
	opt    simulate.Options
	last   *simulate.Result
	calls  int
	reused int // estimates reused, over all runs
}

func (c *memoChecker) Predict(m *ir.Model) (optimize.Prediction, error) {
	memo := c.opt
	memo.Memo = true
	r, err := simulate.RunReusing(m, c.h, memo, c.last)
	if err != nil {
		return optimize.Prediction{}, err
	}
	c.last = r
	c.calls++
	c.reused += simulate.MemoReused(r)
	fresh, err := simulate.Run(m, c.h, c.opt)
	if err != nil {
		return optimize.Prediction{}, err
	}
	if d := simulate.DiffRuns(r, fresh); d != "" {
		c.t.Errorf("%s: prediction %d with the memo differs from a fresh run: %s", c.name, c.calls, d)
	}
	return optimize.Prediction{Kernels: r.Kernels, TotalMs: r.TotalS * 1e3, PeakBytes: int64(r.PeakMemoryBytes), Unknown: r.UnknownNodes}, nil
}

// checkMemo optimizes the model at path at -O3 with a memoChecker on each
// of hws.
func checkMemo(t *testing.T, name, path string, hws []*hw.Hardware) (reused int) {
	for _, h := range hws {
		l, err := pipeline.Load(path, pipeline.LoadOptions{})
		if err != nil {
			t.Logf("%s: %v (skipped)", name, err)
			return reused
		}
		f, err := pipeline.Infer(l, pipeline.InferOptions{DefaultDims: true, Batch: 2, InPlace: true})
		if err != nil {
			f, err = pipeline.Infer(l, pipeline.InferOptions{DefaultDims: true, InPlace: true})
		}
		if err != nil {
			t.Logf("%s: %v (skipped)", name, err)
			l.Close()
			return reused
		}
		c := &memoChecker{t: t, name: name + " on " + h.Name, h: h, opt: simulate.Options{Streams: 1, Mode: simulate.Inference}}
		if _, err := optimize.Run(f.Model, optimize.Options{Level: optimize.MaxLevel, Predictor: c, OnChipBytes: pipeline.OnChipBytes(h), VerifyEach: true}); err != nil {
			t.Logf("%s: %v (skipped)", name, err)
		}
		reused += c.reused
		l.Close()
	}
	return reused
}

func presets(t *testing.T, names ...string) []*hw.Hardware {
	var out []*hw.Hardware
	for _, n := range names {
		h, err := hw.Preset(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// TestMemoGenerated: on every generated shape (large enough for the
// estimates and keys to run on several goroutines), each prediction the
// optimizer asks for after a pass is, with the estimate memo, the fresh
// simulation's: estimates, notes, schedule, memory, warnings.
func TestMemoGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	hws := presets(t, "h100", "cpu-1t")
	reused := 0
	for _, s := range modelgen.Shapes() {
		t.Run(s.Name, func(t *testing.T) {
			p := filepath.Join(dir, s.Name+".onnx")
			if err := importer.WriteFile(s.Build(10000), p); err != nil {
				t.Fatal(err)
			}
			r := checkMemo(t, s.Name, p, hws)
			t.Logf("%s: %d estimates reused", s.Name, r)
			reused += r
		})
	}
	if reused == 0 {
		t.Error("no estimate reused: the memo is not exercised")
	}
}

// TestMemoSharedModels is TestMemoGenerated on the shared models
// (../shared/models), fp16 and quantized ones among them.
func TestMemoSharedModels(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/models absent")
	}
	hws := presets(t, "h100", "cpu-1t")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".onnx") {
			return err
		}
		n++
		name := strings.TrimPrefix(p, root+string(filepath.Separator))
		t.Run(name, func(t *testing.T) { checkMemo(t, name, p, hws) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no models")
	}
}
